import Foundation
import SybilCore
import SybilStore
import SybilTimeline

// `search [--messages N]`: the chat history's FTS5 search over a synthetic corpus (default
// 1,000,000 messages, seeded, so every run indexes the same text): a Zipf-like mix of a few
// thousand words, real English ones among them, plus a set of rare words (each in about ten
// messages). It reports the index build (bulk `appendMessages`, 5,000 per transaction), the
// rate of single fsync'd appends, and p50/p99 of a search with its excerpts and highlights
// (`SQLiteChatHistory.search` at the product's limit of 100, then a `SearchExcerpt` of 80
// columns per hit) for 3-, 2- and 4-letter prefixes, rare words and common words. The
// baseline, timed in the same run on the same file: `LIKE '%word%'` over the messages table,
// newest 101 first (what a search without the index would do), for the rare words (a common
// word's LIKE stops after 101 recent rows, so only a rare word shows the scan); the ratio is
// its p50 over the search's. Each category also prints the query alone (no excerpts), the
// processor time per query with excerpts (which waiting for a core while other processes
// run does not add to) and its three slowest queries. `SYBIL_BENCH_SEARCH_DB=PATH` keeps the corpus at PATH, and a later run
// with the same PATH and size searches it again without building it (nor timing the build).

final class SearchBenchCorpus {
    let vocabulary: [String]
    let rare: [String]
    let random: SeededRandomSource
    /// The rare words the corpus used, in the order first used.
    private(set) var usedRare: [String] = []
    private var usedRareSet = Set<String>()

    init(seed: UInt64) {
        let random = SeededRandomSource(seed: seed)
        self.random = random
        let english = """
            the and you that plan planning planned trip travel budget weather kyoto paris museum train \
            ticket hotel dinner lunch morning evening question answer model reply search history chat \
            message error retry server client window table garden river market coffee bread summer winter \
            project release build test swift code review design layout screen button keyboard network \
            storage memory file folder photo camera music movie book story night light water mountain
            """.split(whereSeparator: \.isWhitespace).map(String.init)
        let syllables = [
            "ka", "lo", "mi", "ren", "ta", "sor", "vel", "in", "ar", "tu", "ne", "pol", "ste", "gra", "um",
            "bri", "cas", "dor", "fen", "hal", "jun", "kel", "mar", "nis", "ost", "pra", "qui", "ros", "sil", "ven",
        ]
        var words = Set(english)
        var vocabulary = english
        while vocabulary.count < 6_000 {
            let count = 2 + Int(random.next(below: 3))
            let word = (0..<count).map { _ in syllables[Int(random.next(below: UInt64(syllables.count)))] }.joined()
            if words.insert(word).inserted { vocabulary.append(word) }
        }
        self.vocabulary = vocabulary
        let letters = Array("bcdfghjklmnpqrstvwxz")
        var rare: [String] = []
        var rareSet = Set<String>()
        while rare.count < 2_000 {
            let word = "zy" + String((0..<6).map { _ in letters[Int(random.next(below: UInt64(letters.count)))] })
            if rareSet.insert(word).inserted { rare.append(word) }
        }
        self.rare = rare
    }

    /// A word drawn log-uniformly by rank (a Zipf-like mix: a few words everywhere, most rare).
    func commonWord() -> String {
        let rank = Int(pow(Double(vocabulary.count), random.nextUnitInterval())) - 1
        return vocabulary[min(max(rank, 0), vocabulary.count - 1)]
    }

    func messageText() -> String {
        let length = 5 + Int(random.next(below: 56))
        var words = (0..<length).map { _ in commonWord() }
        if random.next(below: 50) == 0 {
            let word = rare[Int(random.next(below: UInt64(rare.count)))]
            words[Int(random.next(below: UInt64(length)))] = word
            if usedRareSet.insert(word).inserted { usedRare.append(word) }
        }
        return words.joined(separator: " ") + "."
    }
}

private func searchBenchSeconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) * 1e-18
}

/// p50 and p99 in milliseconds.
private func searchBenchPercentiles(_ seconds: [Double]) -> (p50: Double, p99: Double) {
    let sorted = seconds.sorted()
    let p99Index = min(sorted.count - 1, Int((0.99 * Double(sorted.count)).rounded(.up)) - 1)
    return (sorted[sorted.count / 2] * 1_000, sorted[max(0, p99Index)] * 1_000)
}

func benchmarkSearch(arguments: [String]) async {
    var messages = scaled(1_000_000)
    if let index = arguments.firstIndex(of: "--messages"), index + 1 < arguments.count,
        let value = Int(arguments[index + 1]), (1_000...10_000_000).contains(value)
    {
        messages = value
    }
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sybil-bench-search-\(getpid())")
    defer { try? FileManager.default.removeItem(at: directory) }
    let kept = ProcessInfo.processInfo.environment["SYBIL_BENCH_SEARCH_DB"].flatMap { $0.isEmpty ? nil : $0 }
    let path = kept ?? directory.path + "/chats.sqlite"
    let reuse = kept.map { FileManager.default.fileExists(atPath: $0) } ?? false
    do {
        try await runSearchBenchmark(messages: messages, path: path, reuse: reuse)
    } catch {
        caseFailed("search: failed: \(error)")
    }
}

private func runSearchBenchmark(messages: Int, path: String, reuse: Bool) async throws {
    let corpus = SearchBenchCorpus(seed: 13)
    let store = try SQLiteChatHistory(path: path)
    let clock = ContinuousClock()
    let perConversation = 20
    let batch = 5_000
    var built = 0
    if reuse {
        // A corpus kept at another size would be searched and reported as this one: its chats
        // are c0, c1, … one per 20 messages, so the last one of this size must be there and
        // the next must not.
        let last = (messages - 1) / perConversation
        guard try await store.conversation(id: "c\(last)") != nil,
            try await store.conversation(id: "c\(last + 1)") == nil
        else {
            caseFailed(
                "search: the corpus at \(path) does not hold \(messages) messages (\(last + 1) chats); "
                    + "remove it or pass the --messages it was built with")
            return
        }
        // The same draws as the build, so the queries below are the same words.
        for index in 0..<messages {
            if index % perConversation == 0 { blackHole(corpus.commonWord() + corpus.commonWord()) }
            blackHole(corpus.messageText())
        }
        for _ in 0..<scaled(300) { blackHole(corpus.messageText()) }
        print("search: reusing the corpus at \(path) (\(messages) messages; no build or appends timed)")
    }
    let buildStart = clock.now
    while !reuse, built < messages {
        let count = min(batch, messages - built)
        var records: [ChatMessageRecord] = []
        records.reserveCapacity(count)
        for offset in 0..<count {
            let index = built + offset
            let conversation = "c\(index / perConversation)"
            if index % perConversation == 0 {
                try await store.createConversation(
                    ChatConversationRecord(
                        id: conversation, title: "\(corpus.commonWord()) \(corpus.commonWord())",
                        createdAt: Int64(index), updatedAt: Int64(index)))
            }
            records.append(
                ChatMessageRecord(
                    id: "m\(index)", conversationId: conversation, role: index % 2 == 0 ? .user : .assistant,
                    text: corpus.messageText(), createdAt: Int64(index)))
        }
        try await store.appendMessages(records)
        built += count
    }
    if !reuse {
        let buildSeconds = searchBenchSeconds(buildStart.duration(to: clock.now))
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
        print(
            "search: index build, \(messages) messages in \(messages / perConversation) chats: "
                + "\(format(buildSeconds, 1)) s (\(Int(Double(messages) / buildSeconds)) messages/s, \(size >> 20) MiB)"
        )

        let singles = scaled(300)
        let singleStart = clock.now
        for index in 0..<singles {
            try await store.appendMessage(
                ChatMessageRecord(
                    id: "s\(index)", conversationId: "c0", role: .user, text: corpus.messageText(),
                    createdAt: Int64(messages + index)))
        }
        let singleSeconds = searchBenchSeconds(singleStart.duration(to: clock.now))
        print(
            "search: single appends (one transaction + fsync each): \(Int(Double(singles) / singleSeconds)) messages/s"
        )
    }

    let queries = scaled(100)
    let categories: [(String, [String])] = [
        ("3-letter prefixes", (0..<queries).map { _ in String(longWord(corpus).prefix(3)) }),
        ("2-letter prefixes", (0..<queries).map { _ in String(longWord(corpus).prefix(2)) }),
        ("4-letter prefixes", (0..<queries).map { _ in String(longWord(corpus, minimum: 5).prefix(4)) }),
        (
            "rare words",
            (0..<queries).map { _ in corpus.usedRare[Int(corpus.random.next(below: UInt64(corpus.usedRare.count)))] }
        ),
        ("common words", (0..<queries).map { _ in corpus.vocabulary[Int(corpus.random.next(below: 20))] }),
    ]
    var p50s: [String: Double] = [:]
    for (name, words) in categories {
        _ = try await store.search(words[0], limit: 100)
        var timings: [Double] = []
        var searchOnly: [Double] = []
        var processorTimes: [Double] = []
        var hits = 0
        var capped = 0
        for word in words {
            let start = clock.now
            let startProcessor = processCPUSeconds()
            let results = try await store.search(word, limit: 100)
            searchOnly.append(searchBenchSeconds(start.duration(to: clock.now)))
            var marked = 0
            for hit in results.hits {
                marked += SearchExcerpt(text: hit.text, terms: hit.terms, width: 80).runs.count(where: \.isMatch)
            }
            timings.append(searchBenchSeconds(start.duration(to: clock.now)))
            processorTimes.append(processCPUSeconds() - startProcessor)
            blackHole(marked)
            hits += results.hits.count
            if results.hasMore { capped += 1 }
        }
        let (p50, p99) = searchBenchPercentiles(timings)
        let (bareP50, bareP99) = searchBenchPercentiles(searchOnly)
        let (processorP50, processorP99) = searchBenchPercentiles(processorTimes)
        p50s[name] = p50
        let slowest = zip(words, zip(timings, searchOnly)).sorted { $0.1.0 > $1.1.0 }.prefix(3).map { word, time in
            "\(word) \(format(time.0 * 1_000)) (\(format(time.1 * 1_000)))"
        }
        print(
            "search: \(name) (\(words.count) queries, \(hits / words.count) hits on average, \(capped) past the cap): "
                + "p50 \(format(p50)) ms, p99 \(format(p99)) ms with excerpts "
                + "(the query alone: p50 \(format(bareP50)) ms, p99 \(format(bareP99)) ms; "
                + "processor time with excerpts, which other processes' load leaves out: "
                + "p50 \(format(processorP50)) ms, p99 \(format(processorP99)) ms); "
                + "slowest ms (alone): \(slowest.joined(separator: ", "))")
    }

    let raw = try SQLiteDatabase(.file(path: path), busyTimeoutMilliseconds: 5_000)
    for (name, words) in categories where name == "rare words" {
        var timings: [Double] = []
        for word in words.prefix(10) {
            let start = clock.now
            let rows = try raw.query(
                "SELECT seq, text FROM chat_messages WHERE text LIKE ? ORDER BY seq DESC LIMIT 101",
                [.text("%\(word)%")])
            timings.append(searchBenchSeconds(start.duration(to: clock.now)))
            blackHole(rows)
        }
        let (p50, _) = searchBenchPercentiles(timings)
        print(
            "search: baseline LIKE '%word%' scan, \(name) (10 queries): p50 \(format(p50)) ms; "
                + "the FTS5 search with excerpts is \(format(p50 / (p50s[name] ?? .infinity), 1))x faster")
    }
}

/// A word of at least `minimum` letters, drawn like the corpus draws them.
func longWord(_ corpus: SearchBenchCorpus, minimum: Int = 3) -> String {
    while true {
        let word = corpus.commonWord()
        if word.count >= minimum { return word }
    }
}
