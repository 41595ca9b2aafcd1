import SybilWire

/// When the Agent room posts the shared read position (SPEC §6): only while the room is
/// selected, only after the visible transcript reached the bottom **and** its entrance
/// animation finished (in either order; a newer visible message needs both again), never
/// backwards (a read position from another device that is ahead wins), and once per cursor.
/// It acknowledges the newest *visible* message's cursor. A pure state machine: its owner
/// reports events and posts what it is told to.
public struct SharedReadGate: Sendable, Hashable {
    /// Something that happened.
    public enum Event: Sendable, Hashable {
        /// The room was selected (`true`) or another chat was (`false`).
        case selected(Bool)
        /// The visible transcript reached its bottom.
        case reachedBottom
        /// The reader scrolled away from the bottom.
        case leftBottom
        /// The entrance animation of the newest rows finished.
        case entranceAnimationFinished
        /// The newest visible message is now at `cursor` (`nil`: none).
        case newestVisible(AgentCursor?)
        /// The shared read position is `cursor` (from the server, another device or an ack).
        case sharedRead(AgentCursor?)
        /// Posting `cursor` failed; the next event that allows it posts it again (never at
        /// once, so a failing server is not asked in a loop).
        case markReadFailed(AgentCursor)
    }

    /// What to do.
    public enum Action: Sendable, Hashable {
        /// `POST agent/read` with this cursor.
        case markRead(AgentCursor)
    }

    /// Whether the room is selected.
    public private(set) var isSelected = false
    /// Whether the transcript is at its bottom (since the last newer message).
    public private(set) var atBottom = false
    /// Whether the entrance animation finished (since the last newer message).
    public private(set) var animationFinished = false
    /// The newest visible message's cursor.
    public private(set) var newestVisible: AgentCursor?
    /// The shared read position: the newest of what the server said and what was posted.
    public private(set) var readCursor: AgentCursor?
    /// The newest cursor posted (or being posted).
    public private(set) var posted: AgentCursor?

    /// A gate for a room that is not selected, with nothing read.
    public init() {}

    /// Handles `event`; returns the post to make, if any.
    public mutating func handle(_ event: Event) -> Action? {
        switch event {
        case .selected(let selected):
            isSelected = selected
            atBottom = false
            animationFinished = false
        case .reachedBottom:
            atBottom = true
        case .leftBottom:
            atBottom = false
        case .entranceAnimationFinished:
            animationFinished = true
        case .newestVisible(let cursor):
            if let cursor, Self.isNewer(cursor, than: newestVisible) {
                // A newer message has to reach the bottom and finish its entrance first.
                atBottom = false
                animationFinished = false
            }
            newestVisible = cursor
        case .sharedRead(let cursor):
            if let cursor, Self.isNewer(cursor, than: readCursor) { readCursor = cursor }
        case .markReadFailed(let cursor):
            if posted == cursor { posted = readCursor }
            return nil
        }
        return decide()
    }

    private mutating func decide() -> Action? {
        guard isSelected, atBottom, animationFinished, let newestVisible,
            Self.isNewer(newestVisible, than: readCursor), Self.isNewer(newestVisible, than: posted)
        else { return nil }
        posted = newestVisible
        return .markRead(newestVisible)
    }

    private static func isNewer(_ cursor: AgentCursor, than other: AgentCursor?) -> Bool {
        other.map { $0 < cursor } ?? true
    }
}
