import Synchronization

/// The server's side of one WebSocket connection as a session sees it: incoming messages
/// as a stream, and sends that the transport frames (unmasked, RFC 6455 §5.1). Safe to use
/// from any task; sends after the close are dropped.
///
/// Both directions are bounded by the transport: a session that can send faster than the
/// client reads awaits ``waitForRoom()`` between sends, and a session that reads
/// ``incoming`` slower than the client sends makes the transport stop reading the socket
/// (and close with 1013, try again later, if it stays behind).
public final class ServerWebSocket: Sendable {
    /// What a session sends; the transport turns it into frames.
    public enum Outgoing: Sendable, Hashable {
        /// A complete frame, already encoded.
        case frame([UInt8])
        /// A close frame with `code` and `reason`, after which the connection ends.
        case close(code: UInt16, reason: String)
    }

    /// What each incoming message weighs in the inbox bound beyond its payload.
    public static let messageOverhead = 64

    /// Messages from the client, ending with `.closed`.
    public let incoming: AsyncStream<WebSocketIncoming>
    private let inbox: ServerWebSocketInbox
    private let deliver: @Sendable (Outgoing) -> Bool
    private let room: @Sendable () async -> Void
    private let hasRoom: @Sendable () -> Bool
    private let open = Atomic<Bool>(true)

    /// A socket whose outgoing frames go to `deliver` (the transport, or a test). `room`
    /// returns once the client's unsent backlog is small enough for more; `consumed` is called
    /// when the session has taken messages since the last ``takeConsumedWeight()``.
    public convenience init(
        deliver: @escaping @Sendable (Outgoing) -> Void, room: @escaping @Sendable () async -> Void = {}
    ) {
        self.init(
            accepting: { outgoing in
                deliver(outgoing)
                return true
            }, room: room, consumed: {})
    }

    /// A socket whose `deliver` may refuse a frame (the transport, once the client stopped
    /// reading): a refusal marks the socket disconnected. `hasRoom` tells without suspending
    /// that `room` would return at once (`false`: ask `room`).
    init(
        accepting deliver: @escaping @Sendable (Outgoing) -> Bool, room: @escaping @Sendable () async -> Void,
        hasRoom: @escaping @Sendable () -> Bool = { false }, consumed: @escaping @Sendable () -> Void
    ) {
        self.deliver = deliver
        self.room = room
        self.hasRoom = hasRoom
        let inbox = ServerWebSocketInbox(consumed: consumed)
        self.inbox = inbox
        incoming = AsyncStream(unfolding: { await inbox.next() })
    }

    /// What `message` weighs in the inbox bound.
    static func weight(of message: WebSocketIncoming) -> Int {
        switch message {
        case .text(let text): text.utf8.count + messageOverhead
        case .binary(let bytes): bytes.count + messageOverhead
        case .closed: 0
        }
    }

    /// Whether sends still reach the client.
    public var isOpen: Bool { open.load(ordering: .acquiring) }

    /// Returns once the client can take more (its unsent backlog is below the low-water
    /// mark) or the socket closed: `true` when more may be sent, `false` once closed.
    public func waitForRoom() async -> Bool {
        guard isOpen else { return false }
        // A stream sends most frames with room to spare: no suspension for them.
        if !hasRoom() { await room() }
        return isOpen
    }

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

    /// Waits for room, then sends a text message; `false` once closed.
    public func sendWhenRoom(text: String) async -> Bool {
        guard await waitForRoom() else { return false }
        return send(text: text)
    }

    /// Sends a ping (the client answers with a pong).
    @discardableResult
    public func ping() -> Bool {
        send(WebSocketFrame(opcode: .ping, payload: []))
    }

    /// Starts the closing handshake; later sends are dropped.
    public func close(code: UInt16, reason: String = "") {
        guard open.exchange(false, ordering: .acquiringAndReleasing) else { return }
        _ = deliver(.close(code: code, reason: reason))
    }

    /// Hands a message from the client to the session (the transport calls this). After
    /// `.closed` the session may still send until it closes or returns.
    public func receive(_ message: WebSocketIncoming) {
        inbox.append(message)
    }

    /// The weight of the messages the session took since the last call (the transport's
    /// inbox accounting).
    func takeConsumedWeight() -> Int {
        inbox.takeConsumedWeight()
    }

    /// Marks the connection gone: later sends are dropped (the transport calls this).
    func markDisconnected() {
        open.store(false, ordering: .releasing)
    }

    private func send(_ frame: WebSocketFrame) -> Bool {
        guard isOpen else { return false }
        guard deliver(.frame(frame.encoded(maskingKey: nil))) else {
            markDisconnected()
            return false
        }
        return true
    }
}
