import Foundation
import SybilStore

// `search-corpus DIR [--messages N]`: not a timed case but the preparation of the side-by-side
// history search against `llm` (scripts/bench-search). It writes the search case's seeded
// corpus (default 100,000 messages, 20 to a chat, alternating question and answer) three ways:
// into Sybil's history at `DIR/data/sybil/client/chats.sqlite` (XDG_DATA_HOME=DIR/data), as
// `DIR/corpus.jsonl` (one chat per line: its title and its question/answer pairs, which
// scripts/bench/llm_import.py logs into llm's database through llm's own code), and as
// `DIR/queries.tsv`: 50 queries (common words, rare words, 3-letter prefixes), each with its
// category and the same query in SQLite FTS5 syntax for `llm logs -q` (a prefix as `pla*`,
// since llm matches whole words and Sybil matches prefixes).

func writeSearchCorpus(arguments: [String]) async {
    guard let index = arguments.firstIndex(of: "search-corpus"), index + 1 < arguments.count else {
        caseFailed("search-corpus: say where: search-corpus DIR [--messages N]")
        return
    }
    let directory = arguments[index + 1]
    var messages = 100_000
    if let flag = arguments.firstIndex(of: "--messages"), flag + 1 < arguments.count {
        guard let value = Int(arguments[flag + 1]), (20...10_000_000).contains(value), value % 20 == 0 else {
            caseFailed("search-corpus: --messages needs a multiple of 20 from 20 to 10000000")
            return
        }
        messages = value
    }
    do {
        try await writeSearchCorpus(messages: messages, directory: directory)
    } catch {
        caseFailed("search-corpus: failed: \(error)")
    }
}

private func writeSearchCorpus(messages: Int, directory: String) async throws {
    let history = directory + "/data/sybil/client"
    try FileManager.default.createDirectory(atPath: history, withIntermediateDirectories: true)
    let store = try SQLiteChatHistory(path: history + "/chats.sqlite")
    let corpus = SearchBenchCorpus(seed: 29)
    let perChat = 20
    var lines: [String] = []
    var records: [ChatMessageRecord] = []
    for chat in 0..<(messages / perChat) {
        let id = "c\(chat)"
        let title = "\(corpus.commonWord()) \(corpus.commonWord())"
        let base = Int64(chat * perChat)
        try await store.createConversation(
            ChatConversationRecord(id: id, title: title, createdAt: base, updatedAt: base + Int64(perChat)))
        var pairs: [[String]] = []
        for pair in 0..<(perChat / 2) {
            let question = corpus.messageText()
            let answer = corpus.messageText()
            pairs.append([question, answer])
            for (offset, (role, text)) in [(ChatMessageRecord.Role.user, question), (.assistant, answer)].enumerated() {
                let position = pair * 2 + offset
                records.append(
                    ChatMessageRecord(
                        id: "m\(chat)-\(position)", conversationId: id, role: role, text: text,
                        createdAt: base + Int64(position)))
            }
        }
        let line = try JSONSerialization.data(withJSONObject: ["title": title, "pairs": pairs])
        lines.append(String(decoding: line, as: UTF8.self))
        if records.count >= 5_000 {
            try await store.appendMessages(records)
            records.removeAll(keepingCapacity: true)
        }
    }
    if !records.isEmpty { try await store.appendMessages(records) }
    try (lines.joined(separator: "\n") + "\n").write(
        toFile: directory + "/corpus.jsonl", atomically: true, encoding: .utf8)

    var queries: [String] = []
    for _ in 0..<17 {
        let word = corpus.vocabulary[Int(corpus.random.next(below: 20))]
        queries.append("common\t\(word)\t\(word)")
    }
    for _ in 0..<17 {
        let word = corpus.usedRare[Int(corpus.random.next(below: UInt64(corpus.usedRare.count)))]
        queries.append("rare\t\(word)\t\(word)")
    }
    for _ in 0..<16 {
        let prefix = String(longWord(corpus, minimum: 4).prefix(3))
        queries.append("prefix\t\(prefix)\t\(prefix)*")
    }
    try (queries.joined(separator: "\n") + "\n").write(
        toFile: directory + "/queries.tsv", atomically: true, encoding: .utf8)
    print("search-corpus: \(messages) messages in \(messages / perChat) chats, 50 queries, in \(directory)")
}
