import Foundation
import SybilCore
import SybilStore
import SybilWire
import Testing

@testable import SybilCLI

/// `sybil history show ID --markdown`, `sybil history export [--json] [-o FILE]` and
/// `sybil history delete ID` over the data of ``CLIJSONTests/Home``.
@Suite("sybil history export, delete and Markdown", .timeLimit(.minutes(2)))
struct HistoryExportTests {
    typealias Home = CLIJSONTests.Home

    static let kyoto = """
        # Trip to Kyoto

        `c1` · created 2025-12-01T00:00:00Z · updated 2025-12-01T00:00:01Z

        **System**

        Answer briefly.

        **You**

        Plan two days in Kyoto

        **Assistant**

        **Day 1**: temples
        **Day 2**: gardens

        """

    static let train = """
        # Kyoto by train

        `c2` · created 2025-11-30T23:59:00Z · updated 2025-11-30T23:59:01Z

        **You**

        Which train goes to Kyoto?

        **Assistant**

        _[failed: the server could not be reached]_

        """

    @Test func showMarkdownIsTheChatWithItsTextAsWritten() async throws {
        let home = Home()
        defer { home.remove() }
        try await home.seed()
        let shown = await home.run("history", "show", "c1", "--markdown")
        #expect(shown.status == 0)
        #expect(shown.stdout == Self.kyoto)
        let plain = await home.run("history", "show", "c1")
        #expect(plain.stdout.contains("\nSystem prompt:\nAnswer briefly.\n"), "history show prints the system prompt")
        let both = await home.run("history", "show", "c1", "--markdown", "--json")
        #expect(both.status == 64)
        #expect(both.stderr.hasPrefix("sybil history show: --json and --markdown exclude each other\n"))
    }

    @Test func exportPrintsEveryChatNewestFirst() async throws {
        let home = Home()
        defer { home.remove() }
        try await home.seed()
        let exported = await home.run("history", "export")
        #expect(exported.status == 0)
        #expect(exported.stdout == Self.kyoto + HistoryMarkdown.separator + Self.train)
        #expect(exported.stderr == "sybil history export: 2 conversations exported\n")
    }

    @Test func exportToAFileReplacesItWhole() async throws {
        let home = Home()
        defer { home.remove() }
        try await home.seed()
        let file = home.directory + "/export.json"
        try Data("old".utf8).write(to: URL(fileURLWithPath: file))
        let written = await home.run("history", "export", "--json", "-o", file)
        #expect(written.status == 0, Comment(rawValue: written.stderr))
        #expect(written.stdout == "")
        #expect(written.stderr == "sybil history export: 2 conversations written to '\(file)'\n")
        let printed = await home.run("history", "export", "--json")
        #expect(try String(contentsOfFile: file, encoding: .utf8) == printed.stdout)
        #expect(!FileManager.default.fileExists(atPath: file + ".tmp"))
        let blocked = await home.run("history", "export", "-o", home.directory + "/no/such/dir/file.md")
        #expect(blocked.status == 73)
        #expect(blocked.stderr.hasPrefix("sybil history export: cannot write '\(home.directory)/no/such/dir/file.md'"))
    }

    @Test func deleteRemovesTheChatFromHistoryAndSearch() async throws {
        let home = Home()
        defer { home.remove() }
        try await home.seed()
        #expect(await home.run("search", "gardens").stdout.contains("Trip to Kyoto"))
        let deleted = await home.run("history", "delete", "c1")
        #expect(deleted.status == 0)
        #expect(deleted.stderr == "sybil history delete: deleted conversation 'c1'\n")
        #expect(await home.run("history", "show", "c1").status == 66)
        let search = await home.run("search", "kyoto")
        #expect(search.stdout == "Kyoto by train — Kyoto by train\nKyoto by train — Which train goes to Kyoto?\n")
        #expect(await home.run("search", "gardens").stdout == "")
        #expect(await home.run("history", "list").stdout.split(separator: "\n").count == 1)
        let again = await home.run("history", "delete", "c1")
        #expect(again.status == 66)
        #expect(again.stderr == "sybil history delete: no conversation or web search 'c1'; see sybil history list\n")
    }

    static let weather = """
        # Kyoto weather

        `w1` · web search · saved 2025-11-30T23:59:30Z

        Mild in spring.

        **Sources**

        1. Weather <https://weather.example/kyoto>

        """

    /// A saved web search between the two chats: older than c1, newer than c2.
    func seedWebSearch(_ home: Home) async throws {
        let store = try SQLiteChatHistory(path: ChatHistoryLocation.path(environment: home.environment))
        try await store.saveWebSearch(
            SavedWebSearch(
                id: "w1", query: "Kyoto weather", answer: "Mild in spring.",
                sources: [WebSearchSource(title: "Weather", url: "https://weather.example/kyoto")],
                createdAt: 1_764_547_200_000 - 30_000))
    }

    @Test func exportHoldsTheWebSearchesInTheirPlace() async throws {
        let home = Home()
        defer { home.remove() }
        try await home.seed()
        try await seedWebSearch(home)
        let exported = await home.run("history", "export")
        #expect(exported.status == 0)
        #expect(
            exported.stdout
                == Self.kyoto + HistoryMarkdown.separator + Self.weather + HistoryMarkdown.separator + Self.train)
        #expect(exported.stderr == "sybil history export: 2 conversations and 1 web search exported\n")
        let json = await home.run("history", "export", "--json")
        guard case .array(let items) = try JSONReader().parse(json.stdout), items.count == 3 else {
            Issue.record("three entries: \(json.stdout)")
            return
        }
        let search = try JSONObjectReader(items[1], at: .root)
        #expect(try search.string("kind") == "webSearch")
        #expect(try search.string("id") == "w1")
        #expect(try search.string("answer") == "Mild in spring.")
        #expect(try JSONObjectReader(items[0], at: .root).string("id") == "c1")
        #expect(try JSONObjectReader(items[2], at: .root).string("id") == "c2")
    }

    @Test func deleteRemovesAWebSearchFromHistoryAndSearch() async throws {
        let home = Home()
        defer { home.remove() }
        try await home.seed()
        try await seedWebSearch(home)
        #expect(await home.run("search", "mild").stdout.contains("Kyoto weather"))
        let deleted = await home.run("history", "delete", "w1")
        #expect(deleted.status == 0, Comment(rawValue: deleted.stderr))
        #expect(deleted.stderr == "sybil history delete: deleted web search 'w1'\n")
        #expect(await home.run("history", "show", "w1").status == 66)
        #expect(await home.run("search", "mild").stdout == "")
        #expect(await home.run("history", "list").stdout.split(separator: "\n").count == 2, "the chats stay")
        let again = await home.run("history", "delete", "w1")
        #expect(again.status == 66)
        #expect(again.stderr == "sybil history delete: no conversation or web search 'w1'; see sybil history list\n")
    }

    @Test func deleteWithNothingSavedIs66AndUsageErrorsAre64() async throws {
        let home = Home()
        defer { home.remove() }
        let nothing = await home.run("history", "delete", "c1")
        #expect(nothing.status == 66)
        #expect(nothing.stderr == "sybil history delete: no conversation or web search 'c1' (nothing is saved yet)\n")
        #expect(await home.run("history", "delete").status == 64)
        #expect(await home.run("history", "export", "extra").status == 64)
    }
}
