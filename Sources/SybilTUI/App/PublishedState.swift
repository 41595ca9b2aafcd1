import SybilClient
import SybilWire

/// What the view models published, as the app shows it: taken by the controller's `sync()`
/// (which reads the models inside the runner's observation, so a change asks for a redraw) and
/// applied by ``TerminalApp/update(_:)`` as ``AppMessage/published(_:)``, the one way it reaches
/// the app's state. Fields for a screen or overlay that is not open are `nil` and change nothing.
public struct PublishedState: Sendable, Hashable {
    /// The Quick Question model's state, for its open overlay.
    public struct QuickQuestion: Sendable, Hashable {
        /// The model the question goes to.
        public var model: String
        /// The question asked, if one was.
        public var question: String?
        /// The answer so far.
        public var answer: String
        /// Whether the answer is still arriving.
        public var isAnswering: Bool
        /// A sentence about the answer (stopped, failed), if there is one.
        public var status: String?

        /// Creates the Quick Question's state.
        public init(model: String, question: String?, answer: String, isAnswering: Bool, status: String?) {
            self.model = model
            self.question = question
            self.answer = answer
            self.isAnswering = isAnswering
            self.status = status
        }
    }

    /// The history search's state, for its open overlay.
    public struct Search: Sendable, Hashable {
        /// The hits, one per destination.
        public var hits: [SearchOverlay.Hit]
        /// A sentence about the search (searching, failed), if there is one.
        public var notice: String?
        /// Whether the hits are not yet the current query's.
        public var pending: Bool

        /// Creates the search's state.
        public init(hits: [SearchOverlay.Hit], notice: String?, pending: Bool) {
            self.hits = hits
            self.notice = notice
            self.pending = pending
        }
    }

    /// The sidebar's chats.
    public var chats: [Sidebar.Chat] = []
    /// The Agent room's unread badge.
    public var agentUnread = 0
    /// The chat the chat model holds once it is saved (a new chat then becomes it).
    public var savedChat: Sidebar.Chat?
    /// The header's words (the profile or demo, and the open chat's model).
    public var header: String?
    /// What the server does not offer.
    public var notOffered: Set<ServerSurface> = []
    /// Whether the open session shows a subagent thread.
    public var isThreadOpen = false
    /// The open screen's entries (`nil`: they came with their own message, a saved web
    /// search's).
    public var items: [TimelineItem]?
    /// Whether a reply or a turn is running on the open screen.
    public var isReplyRunning = false
    /// What the open screen says on the status line.
    public var screenStatus: String?
    /// The lines a line of the screen model's viewport is measured in (0: none measures it).
    public var timelineMeasuredLines = 0
    /// A sentence drawn over the timeline while the screen model covers it.
    public var timelineCover: String?
    /// The Agent room's attachment cards, while it is open.
    public var attachmentCards: [AgentAttachment]?
    /// The records, while their overlay is open.
    public var records: RecordsOverlay?
    /// The Quick Question, while its overlay is open.
    public var quickQuestion: QuickQuestion?
    /// The search's hits, while its overlay is open.
    public var search: Search?

    /// An empty snapshot: nothing published yet.
    public init() {}
}
