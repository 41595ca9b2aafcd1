import SybilClient
import SybilStore
import SybilTesting
import Testing

@MainActor
@Suite("Chat search model", .timeLimit(.minutes(2)))
struct ChatSearchModelTests {
    private let store = BlockingChatHistory(recent: [
        ChatConversationRecord(id: "r1", title: "Recent one", createdAt: 1, updatedAt: 2)
    ])
    private let clock = ManualClock()

    private func model() -> ChatSearchModel<ManualClock> {
        ChatSearchModel(store: store, clock: clock)
    }

    /// Waits until the store sees a search for `query` (the model's signal that it searched).
    private func searched(_ query: String) async -> Bool {
        await ConditionWait.until { store.isWaiting(query) }
    }

    @Test func typingIsDebouncedAndOnlyThePauseSearches() async {
        let search = model()
        search.query = "p"
        #expect(await ConditionWait.until { clock.sleeperCount == 1 })
        clock.advance(by: .milliseconds(200))
        search.query = "pl"  // cancels the sleeping "p" at once
        #expect(await ConditionWait.until { clock.sleeperCount == 1 })
        clock.advance(by: .milliseconds(249))
        #expect(clock.sleeperCount == 1)  // a due sleeper is woken inside advance(by:)
        #expect(store.calls == [])
        clock.advance(by: .milliseconds(1))
        #expect(await searched("pl"))
        store.release("pl", texts: ["plan"])
        await search.settle()
        #expect(store.calls == ["pl"])
        #expect(search.results.map(\.text) == ["plan"])
        #expect(search.settledQuery == "pl")
        #expect(!search.isSearching)
    }

    @Test func aSlowEarlierSearchNeverOverwritesALaterOne() async {
        let search = model()
        search.openConversationId = "open"
        search.query = "pla"
        clock.advance(by: .milliseconds(250))
        #expect(await searched("pla"))
        search.query = "plan"
        #expect(search.isSearching)
        clock.advance(by: .milliseconds(250))
        #expect(await searched("plan"))
        store.release("plan", texts: ["planning"])
        #expect(await ConditionWait.until { search.settledQuery == "plan" })
        store.release("pla", texts: ["plate", "plaza"])
        await search.settle()
        #expect(search.results.map(\.text) == ["planning"])
        #expect(search.settledQuery == "plan")
        #expect(search.openConversationId == "open")
    }

    @Test func clearingTheFieldReturnsToRecentItemsAndKeepsTheOpenConversation() async {
        let search = model()
        search.start()
        await search.settle()
        #expect(search.recent.map(\.id) == ["r1"])
        #expect(search.isShowingRecent)
        search.openConversationId = "c7"
        search.query = "kyoto"
        clock.advance(by: .milliseconds(250))
        #expect(await searched("kyoto"))
        store.release("kyoto", texts: ["Kyoto trip"])
        await search.settle()
        #expect(!search.isShowingRecent)
        search.query = "   "
        await search.settle()
        #expect(search.isShowingRecent)
        #expect(search.results == [])
        #expect(search.settledQuery == nil)
        #expect(store.recentCalls == 2)
        #expect(search.openConversationId == "c7")
    }

    @Test func clearingCancelsAPendingSearch() async {
        let search = model()
        search.query = "abc"
        search.query = ""
        clock.advance(by: .seconds(1))
        await search.settle()
        #expect(store.calls == [])
        #expect(!search.isSearching)
    }

    @Test(
        "past the cap the model says to refine",
        arguments: [(false, nil), (true, "More than 100 match; refine the query.")])
    func notice(more: Bool, notice: String?) async {
        let search = model()
        search.query = "the"
        search.submit()
        #expect(await searched("the"))
        store.release("the", texts: ["the end"], more: more)
        await search.settle()
        #expect(search.hasMore == more)
        #expect(search.notice == notice)
    }

    @Test func errorsAreShownNotThrownAndClearedByTheNextSearch() async {
        let search = model()
        search.query = "boom"
        search.submit()
        #expect(await searched("boom"))
        store.fail("boom")
        await search.settle()
        #expect(search.errorMessage == "Search failed: disk I/O error")
        #expect(!search.isSearching)
        search.query = "fine"
        search.submit()
        #expect(await searched("fine"))
        store.release("fine", texts: [])
        await search.settle()
        #expect(search.errorMessage == nil)
        #expect(search.results == [])
    }

    @Test func excerptsMarkTheHitsTerms() {
        let search = model()
        let hit = ChatSearchHit(
            source: .title(conversationId: "c"), title: "Trip", text: "Planning\nthe trip", terms: ["plan"],
            updatedAt: 0)
        let excerpt = search.excerpt(hit, width: 40)
        #expect(excerpt.runs.map(\.text) == ["Planning", " the trip"])
        #expect(excerpt.runs.map(\.isMatch) == [true, false])
    }
}
