import Observation
import SybilTimeline
import SybilWire

/// The viewer of one subagent thread (SPEC §4.2): a view model of its own that loads through
/// `run.codexChatLoadThread` and `run.codexChatLoadThreadPageBefore`, on a timeline whose
/// viewport is `subagent-<thread ID>`.
@MainActor
@Observable
public final class SubagentThreadViewModel {
    /// The chat the thread belongs to.
    public let chat: WorkspaceChatKey
    /// The thread's rows.
    public private(set) var timeline: WorkspaceTimeline
    /// Whether a load is in flight.
    public private(set) var isLoading = false
    /// Why the last load failed; the rows stay.
    public private(set) var lastLoadError: String?

    @ObservationIgnored private let rpc: any WorkspaceChatRPC
    @ObservationIgnored private var generation: UInt64 = 0

    /// A viewer for `threadId` of `chat`; nothing loads until ``load()``.
    public init(chat: WorkspaceChatKey, threadId: String, rpc: any WorkspaceChatRPC) {
        self.chat = chat
        self.rpc = rpc
        self.timeline = WorkspaceTimeline(viewport: .subagent(threadId: threadId))
    }

    /// The thread shown.
    public var threadId: String {
        if case .subagent(let threadId) = timeline.viewport { return threadId }
        preconditionFailure("a thread viewer always shows a subagent viewport")
    }

    /// Shows another thread: a new display epoch, nothing carried over.
    public func show(threadId: String) {
        guard threadId != self.threadId else { return }
        generation += 1
        timeline.switchViewport(to: .subagent(threadId: threadId))
    }

    /// Loads the thread's newest page. A page for a thread no longer shown is dropped.
    public func load() async {
        let threadId = threadId
        let started = generation
        isLoading = true
        defer { if started == generation { isLoading = false } }
        do {
            let page = try await rpc.codexChatLoadThread(chat, threadId: threadId)
            guard started == generation else { return }
            guard page.threadId == threadId else {
                lastLoadError = "The desktop answered with thread \(page.threadId ?? "none") for thread \(threadId)."
                return
            }
            timeline.apply(TimelineSnapshot(threadPage: page))
            lastLoadError = nil
        } catch {
            guard started == generation else { return }
            lastLoadError = String(describing: error)
        }
    }

    /// Loads the thread's page before the shown rows and prepends it.
    @discardableResult
    public func loadOlderPage() async -> Bool {
        guard timeline.hasOlderEntries, let cursor = timeline.oldestCursor else { return false }
        let threadId = threadId
        let started = generation
        do {
            let page = try await rpc.codexChatLoadThreadPageBefore(chat, threadId: threadId, cursor: cursor)
            guard started == generation, page.threadId == threadId else { return false }
            return timeline.prependOlderPage(page, requestedWith: cursor).changed
        } catch {
            if started == generation { lastLoadError = String(describing: error) }
            return false
        }
    }
}
