import Observation
import SybilStore
import SybilTimeline

/// The history search field's view model (SPEC §5.4): typing is debounced on the injected
/// clock, a newer query supersedes (cancels) the one before, and only the latest query's
/// results are ever shown, however slowly an earlier search returns. Clearing the field shows
/// the recent conversations again. The open conversation is the host's and is never changed
/// here. Errors are shown (``errorMessage``), never thrown.
@MainActor
@Observable
public final class ChatSearchModel<C: Clock> where C.Duration == Duration {
    /// How many recent conversations the empty field shows.
    public static var recentLimit: Int { 50 }

    /// The text in the search field. Setting it schedules a search after ``debounce`` (or, when
    /// blank, shows the recent conversations).
    public var query = "" {
        didSet { if query != oldValue { queryChanged() } }
    }
    /// The hits for ``settledQuery``, best first.
    public private(set) var results: [ChatSearchHit] = []
    /// Whether more items matched than are shown.
    public private(set) var hasMore = false
    /// The query whose results are shown (`nil` while the recent conversations are).
    public private(set) var settledQuery: String?
    /// The recent conversations, newest first (shown while the field is blank).
    public private(set) var recent: [ChatConversationSummary] = []
    /// Whether a search for the current query is under way.
    public private(set) var isSearching = false
    /// What went wrong with the last search or listing, for the person.
    public private(set) var errorMessage: String?
    /// The conversation open beside the list: set by the host, left alone by searching.
    public var openConversationId: String?

    /// Whether the field is blank, so the recent conversations are the list.
    public var isShowingRecent: Bool { ChatSearchQuery(query).isEmpty }
    /// "More than 100 match; refine the query." when more matched than are shown, else `nil`.
    public var notice: String? { hasMore ? "More than \(limit) match; refine the query." : nil }

    /// How long typing must pause before a search runs.
    @ObservationIgnored public let debounce: Duration
    /// How many hits are shown at most (the product shows 100).
    @ObservationIgnored public let limit: Int
    @ObservationIgnored private let store: any ChatHistoryStore
    @ObservationIgnored private let clock: C
    /// Bumped by every change of the query; a search applies its results only if it is current.
    @ObservationIgnored private var generation = 0
    @ObservationIgnored private var current: Task<Void, Never>?
    @ObservationIgnored private var running: [Int: Task<Void, Never>] = [:]

    /// A search over `store` showing at most `limit` hits, debounced by `debounce` on `clock`.
    public init(store: any ChatHistoryStore, clock: C, debounce: Duration = .milliseconds(250), limit: Int = 100) {
        precondition(limit > 0, "a search shows at least one hit")
        self.store = store
        self.clock = clock
        self.debounce = debounce
        self.limit = limit
    }

    /// Loads the recent conversations (call when the list appears).
    public func start() {
        if isShowingRecent { schedule(after: nil, query: nil) }
    }

    /// Searches for the current query at once (Return in the field), without the debounce.
    public func submit() {
        generation += 1
        let query = self.query
        schedule(after: nil, query: ChatSearchQuery(query).isEmpty ? nil : query)
    }

    /// Waits until every search or listing started so far has finished (applied or dropped).
    public func settle() async {
        while let task = running.values.first {
            await task.value
        }
    }

    /// Cancels the pending work and waits for it to end.
    public func close() async {
        generation += 1
        for task in running.values { task.cancel() }
        await settle()
    }

    /// The one-line excerpt of `hit` at most `width` columns wide, its matching words marked.
    public func excerpt(_ hit: ChatSearchHit, width: Int) -> SearchExcerpt {
        SearchExcerpt(text: hit.text, terms: hit.terms, width: width)
    }

    private func queryChanged() {
        generation += 1
        if ChatSearchQuery(query).isEmpty {
            schedule(after: nil, query: nil)
        } else {
            schedule(after: clock.now.advanced(by: debounce), query: query)
        }
    }

    /// Starts the work for the current generation: a search for `query` (after `deadline`), or
    /// the recent list for `nil`. The previous generation's work is cancelled.
    private func schedule(after deadline: C.Instant?, query: String?) {
        current?.cancel()
        let generation = self.generation
        isSearching = query != nil
        let task = Task { @MainActor [weak self] in
            await self?.run(generation: generation, deadline: deadline, query: query)
            self?.running[generation] = nil
        }
        current = task
        running[generation] = task
    }

    private func run(generation: Int, deadline: C.Instant?, query: String?) async {
        if let deadline {
            do { try await clock.sleep(until: deadline, tolerance: nil) } catch { return }
        }
        guard generation == self.generation, !Task.isCancelled else { return }
        let store = store
        do {
            if let query {
                let found = try await store.search(query, limit: limit)
                guard generation == self.generation, !Task.isCancelled else { return }
                results = found.hits.map(ChatSearchHit.init)
                hasMore = found.hasMore
                settledQuery = query
            } else {
                let conversations = try await store.recentConversations(limit: Self.recentLimit)
                guard generation == self.generation, !Task.isCancelled else { return }
                recent = conversations.map(ChatConversationSummary.init)
                results = []
                hasMore = false
                settledQuery = nil
            }
            errorMessage = nil
        } catch {
            guard generation == self.generation, !Task.isCancelled else { return }
            errorMessage = query == nil ? "Cannot list recent chats: \(error)" : "Search failed: \(error)"
        }
        isSearching = false
    }
}
