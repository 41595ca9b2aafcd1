import Foundation
import SybilStore
import SybilWire
import Testing

/// Saved web searches read back (what `sybil history list` and `show` need): with their
/// sources, newest first up to a limit, the same from SQLite and from memory; a damaged
/// sources column is an error naming it, never an empty list.
@Suite("Saved web searches", .timeLimit(.minutes(2)))
struct SavedWebSearchStoreTests {
    typealias F = ChatHistoryFixture

    static let searches = [
        SavedWebSearch(
            id: "w1", query: "kyoto weather", answer: "Mild",
            sources: [
                WebSearchSource(title: "Kyoto by month", url: "https://example.com/kyoto"),
                WebSearchSource(title: "", url: "http://example.org/x?y=1"),
            ], createdAt: 1_000),
        SavedWebSearch(id: "w2", query: "osaka", answer: "Busy", createdAt: 3_000),
        SavedWebSearch(id: "w3", query: "nara", answer: "Deer", createdAt: 3_000),
        SavedWebSearch(id: "w4", query: "kobe", answer: "Beef", createdAt: 2_000),
    ]

    private func check(_ store: any ChatHistoryStore) async throws {
        for search in Self.searches { try await store.saveWebSearch(search) }
        #expect(try await store.webSearch(id: "w1") == Self.searches[0])
        #expect(try await store.webSearch(id: "w9") == nil)
        #expect(try await store.recentWebSearches(limit: 10).map(\.id) == ["w3", "w2", "w4", "w1"])
        #expect(try await store.recentWebSearches(limit: 2).map(\.id) == ["w3", "w2"])
        #expect(try await store.recentWebSearches(limit: 0).isEmpty)
        #expect(try await store.search("mild", limit: 5).hits.map(\.source) == [.webSearch(id: "w1")])
    }

    @Test func sqliteKeepsSourcesAndListsNewestFirst() async throws {
        let fixture = F()
        defer { fixture.remove() }
        try await check(try fixture.open())
        // Reopened: the sources were on disk.
        #expect(try await fixture.open().webSearch(id: "w1")?.sources.count == 2)
    }

    @Test func inMemoryAgrees() async throws {
        try await check(InMemoryChatHistory())
    }

    @Test func aDamagedSourcesColumnIsAnErrorNamingIt() async throws {
        let fixture = F()
        defer { fixture.remove() }
        let store = try fixture.open()
        try await store.saveWebSearch(Self.searches[0])
        for damage in ["not json", #"[{"title":"t","url":"javascript:alert(1)"}]"#, "{}"] {
            let raw = try SQLiteDatabase(.file(path: fixture.path))
            try raw.query("UPDATE chat_web_searches SET sources = ? WHERE id = 'w1'", [.text(damage)])
            do {
                _ = try await store.webSearch(id: "w1")
                Issue.record("read a damaged row: \(damage)")
            } catch {
                #expect("\(error)".contains("chat_web_searches.sources"), "\(error)")
            }
        }
    }
}
