import SybilNet
import SybilWire
import Synchronization

/// The server's side of one WebSocket connection as a session sees it: incoming messages
/// as a stream, and sends that the transport frames (unmasked, RFC 6455 §5.1). Safe to use
/// from any task; sends after the close are dropped.
public final class ServerWebSocket: Sendable {
    /// What a session sends; the transport turns it into frames.
    public enum Outgoing: Sendable, Hashable {
        /// A complete frame, already encoded.
        case frame([UInt8])
        /// A close frame with `code` and `reason`, after which the connection ends.
        case close(code: UInt16, reason: String)
    }

    /// Messages from the client, ending with `.closed`.
    public let incoming: AsyncStream<WebSocketIncoming>
    private let continuation: AsyncStream<WebSocketIncoming>.Continuation
    private let deliver: @Sendable (Outgoing) -> Void
    private let open = Atomic<Bool>(true)

    /// A socket whose outgoing frames go to `deliver` (the transport, or a test).
    public init(deliver: @escaping @Sendable (Outgoing) -> Void) {
        self.deliver = deliver
        (incoming, continuation) = AsyncStream.makeStream(of: WebSocketIncoming.self)
    }

    /// Whether sends still reach the client.
    public var isOpen: Bool { open.load(ordering: .acquiring) }

    /// Sends a text message; `false` once closed.
    @discardableResult
    public func send(text: String) -> Bool {
        send(WebSocketFrame(opcode: .text, payload: Array(text.utf8)))
    }

    /// Sends a binary message; `false` once closed.
    @discardableResult
    public func send(binary: [UInt8]) -> Bool {
        send(WebSocketFrame(opcode: .binary, payload: binary))
    }

    /// Sends a ping (the client answers with a pong).
    @discardableResult
    public func ping() -> Bool {
        send(WebSocketFrame(opcode: .ping, payload: []))
    }

    /// Starts the closing handshake; later sends are dropped.
    public func close(code: UInt16, reason: String = "") {
        guard open.exchange(false, ordering: .acquiringAndReleasing) else { return }
        deliver(.close(code: code, reason: reason))
    }

    /// Hands a message from the client to the session (the transport calls this). After
    /// `.closed` the session may still send until it closes or returns.
    public func receive(_ message: WebSocketIncoming) {
        continuation.yield(message)
        if case .closed = message { continuation.finish() }
    }

    /// Marks the connection gone: later sends are dropped (the transport calls this).
    func markDisconnected() {
        open.store(false, ordering: .releasing)
    }

    private func send(_ frame: WebSocketFrame) -> Bool {
        guard isOpen else { return false }
        deliver(.frame(frame.encoded(maskingKey: nil)))
        return true
    }
}
