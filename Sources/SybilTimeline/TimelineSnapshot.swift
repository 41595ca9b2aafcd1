import SybilWire

/// What one load returned, in the form the timeline applies: the newest window of a chat
/// (`run.codexChatLoad`) or the first page of a subagent thread.
public struct TimelineSnapshot: Sendable, Hashable {
    /// Whether history was available; when not, the rows mean nothing.
    public var loadState: WorkspaceChatLoadState
    /// The window, oldest first.
    public var rows: [TimelineBlock]
    /// Whether older rows exist before the window.
    public var hasOlderEntries: Bool
    /// Cursor for the page before the window.
    public var oldestCursor: String?
    /// The live overlay at load time.
    public var overlay: LiveOverlay
    /// The run in progress, if any.
    public var activeRunId: String?

    /// Creates a snapshot.
    public init(
        loadState: WorkspaceChatLoadState, rows: [TimelineBlock], hasOlderEntries: Bool, oldestCursor: String?,
        overlay: LiveOverlay, activeRunId: String?
    ) {
        self.loadState = loadState
        self.rows = rows
        self.hasOlderEntries = hasOlderEntries
        self.oldestCursor = oldestCursor
        self.overlay = overlay
        self.activeRunId = activeRunId
    }

    /// The snapshot a chat load envelope describes.
    public init(envelope: WorkspaceChatLoadEnvelope) {
        self.init(
            loadState: envelope.loadState, rows: envelope.timeline, hasOlderEntries: envelope.hasOlderEntries,
            oldestCursor: envelope.oldestCursor, overlay: envelope.liveOverlay, activeRunId: envelope.activeRun?.runId)
    }

    /// The snapshot a thread's first page describes (threads have no overlay of their own).
    public init(threadPage page: WorkspaceChatPage) {
        self.init(
            loadState: .ready, rows: page.timeline, hasOlderEntries: page.hasOlderEntries,
            oldestCursor: page.oldestCursor, overlay: .empty, activeRunId: nil)
    }
}
