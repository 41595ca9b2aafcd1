import Foundation
import SybilCore
import SybilStore
import SybilWire
import Testing

@testable import SybilCLI

/// `--json` on `history list`, `history show`, `history export`, `search` and `records list`:
/// each documented example in docs/cli-json.md decodes with ``JSONReader`` to exactly what the
/// command prints for the same data (the data `seed()` saves), and the time fields are right.
@Suite("sybil --json documents", .timeLimit(.minutes(2)))
struct CLIJSONTests {
    static let document = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("docs/cli-json.md")

    /// A temporary data home holding the documented data.
    struct Home {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "sybil-cli-json-\(UUID().uuidString)"
        ).path
        var environment: [String: String] { ["XDG_DATA_HOME": directory, "HOME": "/nonexistent"] }

        func remove() { try? FileManager.default.removeItem(atPath: directory) }

        func run(_ arguments: String...) async -> (status: Int32, stdout: String, stderr: String) {
            let test = TestIO(environment: environment)
            let status = await SybilCommandLine.run(arguments, io: test.io)
            return (status, test.stdout, test.stderr)
        }

        /// The chats and records docs/cli-json.md shows.
        func seed() async throws {
            let store = try SQLiteChatHistory(path: ChatHistoryLocation.path(environment: environment))
            let start: Int64 = 1_764_547_200_000  // 2025-12-01T00:00:00Z
            try await store.createConversation(
                ChatConversationRecord(
                    id: "c1", title: "Trip to Kyoto", createdAt: start, updatedAt: start,
                    systemPrompt: "Answer briefly."))
            try await store.appendMessages([
                ChatMessageRecord(
                    id: "m1", conversationId: "c1", role: .user, text: "Plan two days in Kyoto", model: "llama3.2",
                    createdAt: start + 1_000),
                ChatMessageRecord(
                    id: "m2", conversationId: "c1", role: .assistant, text: "**Day 1**: temples\n**Day 2**: gardens",
                    model: "llama3.2", state: .complete, createdAt: start + 1_250, finishedAt: start + 4_500),
            ])
            try await store.createConversation(
                ChatConversationRecord(
                    id: "c2", title: "Kyoto by train", createdAt: start - 60_000, updatedAt: start - 60_000))
            try await store.appendMessages([
                ChatMessageRecord(
                    id: "m3", conversationId: "c2", role: .user, text: "Which train goes to Kyoto?",
                    model: "llama3.2", createdAt: start - 60_000),
                ChatMessageRecord(
                    id: "m4", conversationId: "c2", role: .assistant, text: "", model: "llama3.2",
                    state: .failed(reason: "the server could not be reached"), createdAt: start - 59_000,
                    finishedAt: start - 58_000),
            ])
            let records = try await RecordStore.open(path: RecordsCommand.storePath(environment))
            let mood = try Record(
                id: "0b7c6a52-0e0c-4c5e-9a53-3b1c8f0d2a11", createdAt: start + 10_000,
                payload: .mood(score: 4, note: "rested"))
            let breathing = try Record(
                id: "5d2f9b1e-7a4c-4f7e-8b0a-6c3e2d1f0a22", createdAt: start + 20_000,
                payload: .breathing(durationSeconds: 300, cycles: 30))
            try await records.save(mood)
            try await records.save(breathing)
            try await records.apply([RecordResult(id: breathing.id, status: .created)], at: start + 30_000)
        }
    }

    /// The first ```json block under `## heading` in docs/cli-json.md, decoded.
    static func example(under heading: String) throws -> JSONValue {
        let text = try String(contentsOf: document, encoding: .utf8)
        let section = try #require(
            text.components(separatedBy: "\n## ").first { $0.hasPrefix(heading.dropFirst(3) + "\n") },
            "docs/cli-json.md has a section \(heading)")
        let block = try #require(section.components(separatedBy: "```json\n").dropFirst().first)
        let json = try #require(block.components(separatedBy: "\n```").first)
        return try JSONReader().parse(json)
    }

    @Test(
        "each documented example is what the command prints",
        arguments: [
            ("## sybil history list --json", ["history", "list", "--json"]),
            ("## sybil history show ID --json", ["history", "show", "c1", "--json"]),
            ("## sybil history export --json", ["history", "export", "--json"]),
            ("## sybil search --json", ["search", "--json", "kyoto"]),
            ("## sybil records list --json", ["records", "list", "--json"]),
        ])
    func documented(heading: String, arguments: [String]) async throws {
        let home = Home()
        defer { home.remove() }
        try await home.seed()
        let test = TestIO(environment: home.environment)
        #expect(await SybilCommandLine.run(arguments, io: test.io) == 0, Comment(rawValue: test.stderr))
        #expect(test.stdout.hasSuffix("}]\n") || test.stdout.hasSuffix("}\n"), "one document and a line feed")
        #expect(test.stdout.filter { $0 == "\n" }.count == 1, "one line")
        let printed = try JSONReader().parse(test.stdout)
        #expect(printed == (try Self.example(under: heading)), Comment(rawValue: "printed: \(test.stdout)"))
    }

    @Test func withNothingSavedTheListsAreEmptyArrays() async throws {
        let home = Home()
        defer { home.remove() }
        for arguments in [["history", "list", "--json"], ["search", "--json", "x"], ["history", "export", "--json"]] {
            let test = TestIO(environment: home.environment)
            #expect(await SybilCommandLine.run(arguments, io: test.io) == 0)
            #expect(test.stdout == "[]\n", "\(arguments)")
        }
    }

    @Test(
        "times are ISO 8601 UTC with milliseconds",
        arguments: [
            (Int64(0), "1970-01-01T00:00:00.000Z"), (1_764_547_204_500, "2025-12-01T00:00:04.500Z"),
            (951_782_400_000, "2000-02-29T00:00:00.000Z"), (-1, "1969-12-31T23:59:59.999Z"),
            (253_402_300_799_999, "9999-12-31T23:59:59.999Z"),
        ])
    func time(milliseconds: Int64, expected: String) {
        #expect(HistoryJSON.time(milliseconds) == expected)
    }
}
