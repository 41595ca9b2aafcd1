import SybilWire

/// What the Agent room's stream reports, in order.
public enum AgentRoomStreamUpdate: Sendable, Hashable {
    /// Why a connection ended.
    public enum End: Sendable, Hashable, CustomStringConvertible {
        /// The server closed the connection with `code` (1000 normal, 1001 going away, …).
        case closed(code: UInt16, reason: String)
        /// Close code 4503: the open proxy attachments need is unavailable; text still works.
        case attachmentsUnavailable
        /// Close code 1008 or a `401` handshake, after the token was renewed once.
        case authenticationFailed(String)
        /// A frame broke the contract; nothing of it was used (the text names the frame and the
        /// JSON path).
        case malformedFrame(String)
        /// The app fell this many updates behind; the connection was dropped to replay.
        case fellBehind(Int)
        /// The connection could not be opened or was lost.
        case transport(String)

        /// One sentence for a person.
        public var description: String {
            switch self {
            case .closed(let code, let reason):
                "The Agent room closed the connection (\(code)\(reason.isEmpty ? "" : ", \(reason)"))."
            case .attachmentsUnavailable:
                "Attachments are unavailable right now (the open proxy is down); text messages still work."
            case .authenticationFailed(let reason):
                "The Agent room did not accept the sign-in token (\(reason)); sign in again."
            case .malformedFrame(let reason): "The Agent room sent an update this app cannot read: \(reason)."
            case .fellBehind(let count): "The app fell \(count) updates behind the Agent room."
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
