import SybilWire

/// What the Agent room's stream reports, in order.
public enum AgentRoomStreamUpdate: Sendable, Hashable {
    /// Why a connection ended.
    public enum End: Sendable, Hashable, CustomStringConvertible {
        /// The server closed the connection with `code` (1000 normal, 1001 going away, …), 1008
        /// included: RFC 6455's generic policy violation names no cause, so it is not read as a
        /// rejected token (an expired one is refused by the next upgrade with `401`).
        case closed(code: UInt16, reason: String)
        /// Close code 4503: the open proxy attachments need is unavailable; text still works.
        case attachmentsUnavailable
        /// Close code 1013 (try again later): the server is overloaded or fell behind this
        /// connection. The token stays as it is; the next attempt waits the policy's backoff.
        case serverBusy(String)
        /// A `401` upgrade: the token was rejected. Reported with `retryIn` zero when it was just
        /// renewed; with the backoff when renewing failed or the renewed token was rejected too.
        case authenticationFailed(String)
        /// Close code 4410: the server's history does not reach `after`, the cursor this
        /// connection replayed from (the server restarted without its history, or was restored
        /// from an older copy). The room starts afresh from the server's newest page before the
        /// next attempt, which waits the policy's backoff like any other.
        case historyLost(after: AgentCursor?)
        /// A frame broke the contract; nothing of it was used (the text names the frame and the
        /// JSON path).
        case malformedFrame(String)
        /// The app fell this many updates behind; the connection was dropped to replay.
        case fellBehind(Int)
        /// The room ended the connection to replay from its cursor on the next one (after
        /// the backoff): a reload of a history the server lost failed, and what this connection
        /// sends belongs to the history the room could not load.
        case reconnectRequested
        /// The connection could not be opened or was lost.
        case transport(String)

        /// One sentence for a person.
        public var description: String {
            switch self {
            case .closed(let code, let reason):
                "The Agent room closed the connection (\(code)\(reason.isEmpty ? "" : ", \(reason)"))."
            case .attachmentsUnavailable:
                "Attachments are unavailable right now (the open proxy is down); text messages still work."
            case .serverBusy(let reason): "The Agent room is busy and asked to be tried again later (\(reason))."
            case .authenticationFailed(let reason):
                "The Agent room did not accept the sign-in token (\(reason)); sign in again."
            case .historyLost(let after):
                "The Agent room's history no longer reaches "
                    + (after.map { "\($0), where this app left off." } ?? "where this app left off.")
            case .malformedFrame(let reason): "The Agent room sent an update this app cannot read: \(reason)."
            case .fellBehind(let count): "The app fell \(count) updates behind the Agent room."
            case .reconnectRequested:
                "The app reconnects to the Agent room to load the history the server has now."
            case .transport(let reason): "The Agent room could not be reached: \(reason)."
            }
        }
    }

    /// A connection opened; the server replays every message after `after` (all without it).
    case connected(after: AgentCursor?)
    /// A frame, decoded whole.
    case event(AgentStreamEvent)
    /// The connection ended; the next attempt starts after `retryIn` (zero after a token
    /// renewal).
    case disconnected(End, retryIn: Duration)
}
