/// A run's state as the desktop reports it (`run` events, `run.codexChatStop`).
public enum WorkspaceRunState: String, Sendable, Hashable, CaseIterable {
    /// Waiting behind the running turn.
    case queued
    /// Running.
    case started
    /// Ended normally.
    case finished
    /// Ended with an error.
    case failed
    /// A queued run stopped before it started.
    case cancelled
    /// A running run stopped by the user.
    case stopped

    /// Whether the run has ended (each ending is a staleness trigger, SPEC §4.2).
    public var isEnding: Bool {
        switch self {
        case .queued, .started: false
        case .finished, .failed, .cancelled, .stopped: true
        }
    }
}
