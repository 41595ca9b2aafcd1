import Foundation
import SybilStore
import Testing

/// A two-letter query word that starts far more indexed words than the dictionary expands
/// (`SQLiteChatHistory+Terms.swift`), in messages, titles and web searches. Past the cap the
/// search returns exactly the newest `limit` matching items by their last change, each with its
/// own text, title, time and the query's words; the expectation is computed here from what was
/// written, not read back from the store.
@Suite("Chat history search, short prefixes", .timeLimit(.minutes(2)))
struct ChatHistoryShortPrefixTests {
    typealias F = ChatHistoryFixture
    typealias Hit = ChatSearchResults.Hit

    /// What was written, kept the way the search should see it.
    private struct Model {
        var order: [Hit.Source] = []  // oldest change first
        var titles: [String: String] = [:]
        var conversationTimes: [String: Int64] = [:]
        var messages: [String: (conversation: String, text: String, time: Int64)] = [:]
        var webSearches: [String: (query: String, answer: String, time: Int64)] = [:]

        mutating func changed(_ source: Hit.Source) {
            order.removeAll { $0 == source }
            order.append(source)
        }

        static func matches(_ text: String, _ word: String) -> Bool {
            text.split { !$0.isLetter && !$0.isNumber }.contains { $0.lowercased().hasPrefix(word) }
        }

        /// Every item that holds all of `words` (as word prefixes), newest change first.
        func expected(_ words: [String]) -> [Hit] {
            order.reversed().compactMap { source in
                switch source {
                case .title(let conversation):
                    let title = titles[conversation]!
                    guard words.allSatisfy({ Self.matches(title, $0) }) else { return nil }
                    return Hit(
                        source: source, title: title, text: title, terms: words,
                        updatedAt: conversationTimes[conversation]!)
                case .message(let conversation, let id):
                    let message = messages[id]!
                    guard words.allSatisfy({ Self.matches(message.text, $0) }) else { return nil }
                    return Hit(
                        source: source, title: titles[conversation]!, text: message.text, terms: words,
                        updatedAt: message.time)
                case .webSearch(let id):
                    let search = webSearches[id]!
                    let both = search.query + " " + search.answer
                    guard words.allSatisfy({ Self.matches(both, $0) }) else { return nil }
                    let answerMatches = words.contains { Self.matches(search.answer, $0) }
                    return Hit(
                        source: source, title: search.query, text: answerMatches ? search.answer : search.query,
                        terms: words, updatedAt: search.time)
                }
            }
        }
    }

    /// 3 conversations, 180 messages (135 with a distinct word starting "pl", some capitalised;
    /// 45 with "pl" only inside words), web searches matching by query, by answer or not at all
    /// between the batches, then edits and a rename that move items to the front or out.
    private func fill(_ store: SQLiteChatHistory) async throws -> Model {
        var model = Model()
        let letters = Array("abcdefghijklmnopqrstuvwxyz")
        for (index, title) in ["Plaza notes", "Other things", "A plum list"].enumerated() {
            let id = "c\(index)"
            try await store.createConversation(F.conversation(id, title: title, at: 1_000 + Int64(index)))
            model.titles[id] = title
            model.conversationTimes[id] = 1_000 + Int64(index)
            model.changed(.title(conversationId: id))
        }
        for batch in 0..<6 {
            var records: [ChatMessageRecord] = []
            for index in batch * 30..<(batch + 1) * 30 {
                let conversation = "c\(index % 3)"
                let word = "pl" + String(letters[index / 26 % 26]) + String(letters[index % 26])
                let text =
                    index % 4 == 3
                    ? "ample apple triple \(index)" : "note \(index): \(index % 5 == 0 ? word.uppercased() : word) more"
                let role: ChatMessageRecord.Role = index % 2 == 0 ? .user : .assistant
                let record = F.message("m\(index)", in: conversation, role: role, text: text, at: 2_000 + Int64(index))
                records.append(record)
                model.messages[record.id] = (conversation, text, record.finishedAt ?? record.createdAt)
                model.conversationTimes[conversation] = record.createdAt
                model.changed(.message(conversationId: conversation, messageId: record.id))
            }
            try await store.appendMessages(records)
            let (query, answer) =
                switch batch % 3 {
                case 0: ("plans \(batch)", "none")
                case 1: ("rain \(batch)", "Pluto \(batch) is small")
                default: ("moons \(batch)", "apple")
                }
            let time = 5_000 + Int64(batch)
            try await store.saveWebSearch(
                SavedWebSearch(id: "w\(batch)", query: query, answer: answer, createdAt: time))
            model.webSearches["w\(batch)"] = (query, answer, time)
            model.changed(.webSearch(id: "w\(batch)"))
        }
        // An edit moves a match to the front, makes a message match, or makes one stop matching.
        for (id, text, time, finished) in [
            ("m4", "edited: plzz now", Int64(9_000), Int64(9_005) as Int64?), ("m7", "now planning", 9_100, nil),
            ("m8", "no match now", 9_300, nil),
        ] {
            try await store.updateMessage(id: id, text: text, state: .complete, finishedAt: finished, at: time)
            let old = model.messages[id]!
            model.messages[id] = (old.conversation, text, finished ?? 2_000 + Int64(id.dropFirst())!)
            model.conversationTimes[old.conversation] = time
            model.changed(.message(conversationId: old.conversation, messageId: id))
            if id == "m7" {
                try await store.renameConversation(id: "c1", title: "Pleasant plans", at: 9_200)
                model.titles["c1"] = "Pleasant plans"
                model.conversationTimes["c1"] = 9_200
                model.changed(.title(conversationId: "c1"))
            }
        }
        return model
    }

    @Test(arguments: [1, 2, 7, 50, 100])
    func pastTheCapTheNewestMatchesComeInOrderOfTheirLastChange(limit: Int) async throws {
        let fixture = F()
        defer { fixture.remove() }
        let store = try fixture.open()
        let model = try await fill(store)
        for words in [["pl"], ["pl", "no"]] {
            let all = model.expected(words)
            #expect(all.count > limit, "the query must match more than the limit")
            let results = try await store.search(words.joined(separator: " "), limit: limit)
            #expect(results.hasMore)
            #expect(results.hits == Array(all.prefix(limit)), "\(words)")
        }
    }

    @Test func aCompleteListHoldsEveryMatchOnce() async throws {
        let fixture = F()
        defer { fixture.remove() }
        let store = try fixture.open()
        let model = try await fill(store)
        for words in [["pl"], ["PL", "no"]] {
            let lowered = words.map { $0.lowercased() }
            let all = model.expected(lowered).map {
                Hit(source: $0.source, title: $0.title, text: $0.text, terms: words, updatedAt: $0.updatedAt)
            }
            let results = try await store.search(words.joined(separator: " "), limit: all.count)
            #expect(!results.hasMore)
            #expect(results.hits.count == all.count)
            #expect(Set(results.hits) == Set(all), "\(words)")
        }
    }
}
