/// One entry of a timeline as the terminal draws it, whatever surface it comes from (a chat,
/// the Agent room, a workspace session): the screen adapters turn each view model's rows into
/// these, and the timeline view lays them out. Everything in it was decided by the engine; the
/// view only draws it.
public struct TimelineItem: Sendable, Hashable, Identifiable {
    /// What kind of entry this is, which decides its layout.
    public enum Role: Sendable, Hashable {
        /// The person's own message.
        case user
        /// A reply from the assistant or the agent.
        case assistant
        /// A notice from the app or the server.
        case system
        /// A tool or activity row of a workspace turn.
        case activity
        /// The live thinking status (pinned at the bottom while a turn runs).
        case thinking
        /// A subagent thread's summary row (opens the thread).
        case subagent
        /// A day boundary ("Monday, 30 November").
        case dateSeparator
        /// The first unread entry's marker.
        case unreadMarker
    }

    /// The tone of a status line.
    public enum Tone: Sendable, Hashable {
        /// Plain secondary text.
        case normal
        /// Waiting, queued, offline.
        case warning
        /// Failed.
        case error
        /// Sent, confirmed.
        case success
    }

    /// A stable identity (survives echo reconciliation and edits).
    public var id: String
    /// What kind of entry this is.
    public var role: Role
    /// Who wrote it, when shown ("You", "Sybil", an agent's name).
    public var author: String?
    /// The text: Markdown when ``isMarkdown``, else plain text.
    public var body: String
    /// Whether ``body`` is Markdown.
    public var isMarkdown: Bool
    /// A status line under the entry ("Sending…", "Failed: … — r to retry"), if any.
    public var status: String?
    /// How the status is coloured.
    public var tone: Tone
    /// Changes whenever anything drawn changes, so laid-out lines can be cached by
    /// (``id``, ``revision``, width).
    public var revision: Int

    /// Creates an item.
    public init(
        id: String, role: Role, author: String? = nil, body: String, isMarkdown: Bool = false,
        status: String? = nil, tone: Tone = .normal, revision: Int = 0
    ) {
        self.id = id
        self.role = role
        self.author = author
        self.body = body
        self.isMarkdown = isMarkdown
        self.status = status
        self.tone = tone
        self.revision = revision
    }
}
