import Foundation
import SybilStore
import Testing

@testable import SybilCLI

/// `sybil search` and `sybil history` over a history file in a temporary XDG_DATA_HOME, run
/// in-process through `SybilCommandLine.run`.
@Suite("sybil search and sybil history", .timeLimit(.minutes(2)))
struct HistoryCommandTests {
    /// A temporary data home; `store()` opens the history file the commands read.
    struct Home {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "sybil-cli-history-\(UUID().uuidString)"
        ).path
        var environment: [String: String] { ["XDG_DATA_HOME": directory, "HOME": "/nonexistent"] }

        func store() throws -> SQLiteChatHistory {
            try SQLiteChatHistory(path: ChatHistoryLocation.path(environment: environment))
        }

        func remove() { try? FileManager.default.removeItem(atPath: directory) }

        func test(terminal: Bool = false, extra: [String: String] = [:]) -> (TestIO, CommandIO) {
            let test = TestIO(environment: environment.merging(extra) { $1 })
            var io = test.io
            io.outputIsTerminal = terminal
            return (test, io)
        }

        /// A chat "Trip to Kyoto" (c1, updated 2026-12-01T00:00:05Z) and a web search.
        func seed() async throws {
            let store = try store()
            let start: Int64 = 1_764_547_200_000  // 2025-12-01T00:00:00Z
            try await store.createConversation(
                ChatConversationRecord(id: "c1", title: "Trip to Kyoto", createdAt: start, updatedAt: start))
            try await store.appendMessages([
                ChatMessageRecord(
                    id: "m1", conversationId: "c1", role: .user, text: "Help me plan\nthe trip",
                    createdAt: start + 1_000),
                ChatMessageRecord(
                    id: "m2", conversationId: "c1", role: .assistant, text: "**Day 1**: temples\n\u{1B}[31mred",
                    model: "gpt-x",
                    state: .stopped, createdAt: start + 2_000, finishedAt: start + 3_000),
                ChatMessageRecord(
                    id: "m3", conversationId: "c1", role: .assistant, text: "", model: "gpt-x",
                    state: .failed(reason: "HTTP 500 from the server"), createdAt: start + 5_000,
                    finishedAt: start + 5_500),
            ])
            try await store.createConversation(
                ChatConversationRecord(id: "c2", title: "Empty", createdAt: start - 1_000, updatedAt: start - 1_000))
            try await store.saveWebSearch(
                SavedWebSearch(id: "w1", query: "kyoto weather", answer: "Mild", createdAt: start))
        }
    }

    @Test func searchPrintsTitleAndExcerptPlainWhenNotATerminal() async throws {
        let home = Home()
        defer { home.remove() }
        try await home.seed()
        let (test, io) = home.test()
        #expect(await SybilCommandLine.run(["search", "plan"], io: io) == 0)
        #expect(test.stdout == "Trip to Kyoto — Help me plan the trip\n")
        #expect(test.stderr == "")
    }

    @Test(
        "bold only on a terminal without NO_COLOR",
        arguments: [
            (true, [:], "Trip to Kyoto — Help me \u{1B}[1mplan\u{1B}[22m the trip\n"),
            (true, ["NO_COLOR": "1"], "Trip to Kyoto — Help me plan the trip\n"),
            (true, ["NO_COLOR": ""], "Trip to Kyoto — Help me \u{1B}[1mplan\u{1B}[22m the trip\n"),
            (false, [:], "Trip to Kyoto — Help me plan the trip\n"),
        ])
    func bold(terminal: Bool, environment: [String: String], expected: String) async throws {
        let home = Home()
        defer { home.remove() }
        try await home.seed()
        let (test, io) = home.test(terminal: terminal, extra: environment)
        #expect(await SybilCommandLine.run(["search", "PLA"], io: io) == 0, Comment(rawValue: test.stderr))
        #expect(test.stdout == expected)
    }

    @Test func titleHitsAndWebSearchesAndControlCharactersNeverReachTheTerminal() async throws {
        let home = Home()
        defer { home.remove() }
        try await home.seed()
        let (test, io) = home.test(terminal: true)
        #expect(await SybilCommandLine.run(["search", "kyoto"], io: io) == 0)
        let lines = test.stdout.split(separator: "\n").map(String.init).sorted()
        #expect(
            lines
                == [
                    "Trip to \u{1B}[1mKyoto\u{1B}[22m — Trip to \u{1B}[1mKyoto\u{1B}[22m",
                    "[web] \u{1B}[1mkyoto\u{1B}[22m weather — \u{1B}[1mkyoto\u{1B}[22m weather",
                ].sorted())
        let (red, redIO) = home.test()
        #expect(await SybilCommandLine.run(["search", "temples"], io: redIO) == 0)
        #expect(red.stdout == "Trip to Kyoto — **Day 1**: temples [31mred\n")
    }

    @Test func noMatchesIsSuccessSaidOnStandardError() async throws {
        let home = Home()
        defer { home.remove() }
        let (empty, emptyIO) = home.test()
        #expect(await SybilCommandLine.run(["search", "anything"], io: emptyIO) == 0)
        #expect(empty.stderr == "no matches\n")
        #expect(!FileManager.default.fileExists(atPath: ChatHistoryLocation.path(environment: home.environment)))
        try await home.seed()
        let (test, io) = home.test()
        #expect(await SybilCommandLine.run(["search", "zzz"], io: io) == 0)
        #expect(test.stdout == "")
        #expect(test.stderr == "no matches\n")
    }

    @Test(
        "past the limit standard error says to refine",
        arguments: [(2, nil), (3, nil), (4, "more than 3 match; refine the query\n")])
    func refine(matching: Int, notice: String?) async throws {
        let home = Home()
        defer { home.remove() }
        let store = try home.store()
        for index in 0..<matching {
            try await store.createConversation(
                ChatConversationRecord(id: "c\(index)", title: "budget \(index)", createdAt: 1, updatedAt: 1))
        }
        let (test, io) = home.test()
        #expect(await SybilCommandLine.run(["search", "--limit", "3", "budget"], io: io) == 0)
        #expect(test.stdout.split(separator: "\n").count == min(matching, 3))
        #expect(test.stderr == (notice ?? ""))
    }

    @Test(
        "bad arguments are usage errors",
        arguments: [
            (["search"], "sybil search: needs a QUERY\n"),
            (
                ["search", "--limit", "0", "x"],
                "sybil search: --limit needs a whole number from 1 to 1000, got '0'\n"
            ),
            (
                ["search", "--limit", "1001", "x"],
                "sybil search: --limit needs a whole number from 1 to 1000, got '1001'\n"
            ),
            (["search", "--color", "x"], "sybil search: unknown option '--color'\n"),
            (["history", "nope"], "sybil history: unknown subcommand 'nope'\n"),
            (["history", "list", "x"], "sybil history list: takes no arguments, got 'x'\n"),
            (
                ["history", "list", "--limit", "0"],
                "sybil history list: --limit needs a whole number from 1 to 10000, got '0'\n"
            ),
            (["history", "show"], "sybil history show: needs a conversation ID\n"),
            (["history", "show", "a", "b"], "sybil history show: takes one ID, got another: 'b'\n"),
        ])
    func usage(arguments: [String], message: String) async {
        let home = Home()
        defer { home.remove() }
        let (test, io) = home.test()
        #expect(await SybilCommandLine.run(arguments, io: io) == 64)
        #expect(test.stderr.hasPrefix(message))
        #expect(test.stdout == "")
    }

    @Test func limitsAcceptTheirBounds() async throws {
        let home = Home()
        defer { home.remove() }
        try await home.seed()
        for arguments in [["search", "--limit", "1", "kyoto"], ["search", "--limit=1000", "kyoto"]] {
            let (_, io) = home.test()
            #expect(await SybilCommandLine.run(arguments, io: io) == 0)
        }
        let (one, oneIO) = home.test()
        #expect(await SybilCommandLine.run(["history", "list", "--limit", "1"], io: oneIO) == 0)
        #expect(one.stdout.split(separator: "\n").count == 1)
        let (all, allIO) = home.test()
        #expect(await SybilCommandLine.run(["history", "list", "--limit", "10000"], io: allIO) == 0)
        #expect(all.stdout.split(separator: "\n").count == 3, "two chats and a web search")
    }

    @Test func historyListsNewestFirstWithTimesTitlesAndCounts() async throws {
        let home = Home()
        defer { home.remove() }
        let (none, noneIO) = home.test()
        #expect(await SybilCommandLine.run(["history"], io: noneIO) == 0)
        #expect(none.stderr == "no saved chats\n")
        try await home.seed()
        let (test, io) = home.test()
        #expect(await SybilCommandLine.run(["history", "list"], io: io) == 0)
        #expect(
            test.stdout == """
                c1  2025-12-01T00:00:05Z  Trip to Kyoto  (3 messages)
                w1  2025-12-01T00:00:00Z  [web] kyoto weather  (0 sources)
                c2  2025-11-30T23:59:59Z  Empty  (0 messages)

                """)
        let (bare, bareIO) = home.test()
        #expect(await SybilCommandLine.run(["history"], io: bareIO) == 0)
        #expect(bare.stdout == test.stdout)
    }

    @Test func historyShowPrintsRolesRepliesAsStoredAndHowTheyEnded() async throws {
        let home = Home()
        defer { home.remove() }
        try await home.seed()
        let (test, io) = home.test()
        #expect(await SybilCommandLine.run(["history", "show", "c1"], io: io) == 0)
        #expect(
            test.stdout == """
                Trip to Kyoto
                id c1, created 2025-12-01T00:00:00Z, updated 2025-12-01T00:00:05Z, 3 messages

                You:
                Help me plan
                the trip

                Assistant (gpt-x):
                **Day 1**: temples
                \u{FFFD}[31mred
                [stopped]

                Assistant (gpt-x):
                [failed: HTTP 500 from the server]

                """)
        let (missing, missingIO) = home.test()
        #expect(await SybilCommandLine.run(["history", "show", "c9"], io: missingIO) == 66)
        #expect(missing.stderr == "sybil history show: no conversation or web search 'c9'; see sybil history list\n")
    }

    @Test func anUnreadableHistoryIsExit66() async throws {
        let home = Home()
        defer { home.remove() }
        let path = ChatHistoryLocation.path(environment: home.environment)
        try FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data("not a database at all, just text that is long enough".utf8).write(to: URL(fileURLWithPath: path))
        let (test, io) = home.test()
        #expect(await SybilCommandLine.run(["search", "x"], io: io) == 66)
        #expect(test.stderr.hasPrefix("sybil search: cannot open the chat history '\(path)': "))
    }
}
