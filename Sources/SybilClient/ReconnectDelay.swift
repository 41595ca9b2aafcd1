import SybilCore

/// How a wait before reconnecting reads on a status line: whole seconds, rounded up, so a
/// jittered `1.004429421 seconds` is "2 s" and never a raw `Duration`.
public enum ReconnectDelay {
    /// `retryIn` in whole seconds, at least 1.
    public static func seconds(_ retryIn: Duration) -> Int64 {
        let (seconds, attoseconds) = retryIn.components
        guard seconds >= 0 else { return 1 }
        return max(1, attoseconds > 0 ? seconds + 1 : seconds)
    }

    /// "reconnecting in 2 s (the reason)", the reason made safe for a terminal on one line.
    public static func sentence(reason: String, retryIn: Duration) -> String {
        let reason = TerminalText.oneLine(reason)
        return "reconnecting in \(seconds(retryIn)) s" + (reason.isEmpty ? "" : " (\(reason))")
    }
}

extension AgentRoomModel.Connection: CustomStringConvertible {
    /// A status line's words: "connected", "reconnecting in 2 s (reason)".
    public var description: String {
        switch self {
        case .idle: "not connected"
        case .connecting: "connecting"
        case .connected: "connected"
        case .reconnecting(let reason, let retryIn): ReconnectDelay.sentence(reason: reason, retryIn: retryIn)
        }
    }
}

extension WorkspaceLiveFeed.Connection: CustomStringConvertible {
    /// A status line's words: "connected", "reconnecting in 2 s (reason)".
    public var description: String {
        switch self {
        case .idle: "not following"
        case .connecting: "connecting"
        case .connected: "connected"
        case .reconnecting(let reason, let retryIn): ReconnectDelay.sentence(reason: reason, retryIn: retryIn)
        }
    }
}
