import Foundation

/// What arrives on a WebSocket: a message, or the close that ends the stream.
public enum WebSocketIncoming: Sendable, Hashable {
    /// A text message.
    case text(String)
    /// A binary message.
    case binary([UInt8])
    /// The connection closed with this code (1005: none given) and reason; nothing follows.
    case closed(code: UInt16, reason: String)
}

/// How a WebSocket connection behaves.
public struct WebSocketOptions: Sendable {
    /// The largest message accepted (bigger ones close the connection with 1009).
    public var maximumMessage: Int
    /// How often a keepalive ping goes out.
    public var pingInterval: Duration
    /// Header fields added to the opening handshake (e.g. `Authorization`).
    public var headers: HTTPHeaders
    /// A PEM file of certificates to trust for `wss:` besides the system's (a self-hosted
    /// server with its own authority).
    public var trustedCertificatesFile: String?

    /// Options with Sybil's defaults: 16 MiB messages, a ping every 20 s.
    public init(
        maximumMessage: Int = 16 << 20, pingInterval: Duration = .seconds(20), headers: HTTPHeaders = HTTPHeaders(),
        trustedCertificatesFile: String? = nil
    ) {
        self.maximumMessage = maximumMessage
        self.pingInterval = pingInterval
        self.headers = headers
        self.trustedCertificatesFile = trustedCertificatesFile
    }
}

/// A WebSocket client connection: one protocol, implemented over POSIX sockets and OpenSSL on
/// Linux (``SocketWebSocket``).
public protocol WebSocketConnection: Sendable {
    /// Messages in order; the stream ends after `.closed`, and throws on a protocol violation
    /// or a lost connection.
    var incoming: AsyncThrowingStream<WebSocketIncoming, any Error> { get }
    /// Sends a text message.
    func send(text: String) throws
    /// Sends a binary message.
    func send(binary: [UInt8]) throws
    /// Starts the closing handshake with `code` and `reason`.
    func close(code: UInt16, reason: String)
    /// Where a consumer of ``incoming`` runs best, or `nil` (the default): a consumer under
    /// `withTaskExecutorPreference(connection.consumerExecutor)` is resumed on the thread that
    /// read its message's bytes (one wake-up per message instead of two). Code run there must
    /// not block or run long: the connection's reads and writes wait for it meanwhile.
    var consumerExecutor: (any TaskExecutor)? { get }
}

extension WebSocketConnection {
    /// No executor of its own: the consumer runs wherever its task runs.
    public var consumerExecutor: (any TaskExecutor)? { nil }
}

/// Why a WebSocket connection failed.
public enum WebSocketError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The URL is not `ws:` or `wss:` with a host.
    case invalidURL(String)
    /// The opening handshake failed.
    case handshake(String)
    /// The peer broke the protocol; the connection was closed with the attached code.
    case protocolViolation(WebSocketProtocolError)
    /// The connection ended without a closing handshake (1006).
    case connectionLost(String)
    /// A message was sent after the connection closed.
    case closed

    /// One sentence.
    public var description: String {
        switch self {
        case .invalidURL(let url): "\(url) is not a ws: or wss: URL with a host"
        case .handshake(let reason): "the WebSocket handshake failed: \(reason)"
        case .protocolViolation(let error): "the server broke the WebSocket protocol: \(error)"
        case .connectionLost(let reason): "the connection was lost (\(reason))"
        case .closed: "the connection is closed"
        }
    }
}
