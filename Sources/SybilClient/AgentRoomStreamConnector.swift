import Foundation
import SybilHTTP

/// Why a stream connection could not be opened.
public enum AgentRoomStreamConnectError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The server refused the token (`401` to the upgrade).
    case unauthorized(String)
    /// Anything else: refused, unreachable, another status, a broken handshake.
    case failed(String)

    public var description: String {
        switch self {
        case .unauthorized(let reason): "the server refused the token: \(reason)"
        case .failed(let reason): reason
        }
    }
}

/// Opens the WebSocket of `agent/stream`: ``AgentRoomStreamSocketConnector`` over sockets, or
/// a test's scripted connections (so tests drive frames without sockets).
public protocol AgentRoomStreamConnector: Sendable {
    /// Opens `url` (`ws:`/`wss:`) with `headers` in the opening handshake.
    func connect(to url: URL, headers: HTTPHeaders) async throws(AgentRoomStreamConnectError)
        -> any WebSocketConnection
}
