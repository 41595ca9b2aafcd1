/// A complete WebSocket message or control event, after reassembly.
public enum WebSocketEvent: Sendable, Hashable {
    /// A text message (validated UTF-8).
    case text(String)
    /// A binary message.
    case binary([UInt8])
    /// A ping with its payload (answer with a pong carrying the same bytes).
    case ping([UInt8])
    /// A pong.
    case pong([UInt8])
    /// The peer closed: its code (1005 when none was sent) and reason.
    case close(code: UInt16, reason: String)
}

/// Turns frames into messages (RFC 6455 §5.4–5.5, §8.1): joins fragments, lets control frames
/// interleave, rejects a continuation without a start and a new message inside a fragmented
/// one, validates text as strict UTF-8, checks close payloads and codes, and bounds the
/// message size.
public struct WebSocketMessageAssembler: Sendable {
    /// The largest message accepted.
    public let maximumMessage: Int
    private var fragments: [UInt8] = []
    private var fragmentedOpcode: WebSocketFrame.Opcode?

    /// An assembler bounding messages to `maximumMessage` bytes.
    public init(maximumMessage: Int) {
        self.maximumMessage = maximumMessage
    }

    /// Feeds one frame; returns an event when one is complete.
    public mutating func add(_ frame: WebSocketFrame) throws(WebSocketProtocolError) -> WebSocketEvent? {
        switch frame.opcode {
        case .ping: return .ping(frame.payload)
        case .pong: return .pong(frame.payload)
        case .close: return try Self.close(frame.payload)
        case .text, .binary:
            guard fragmentedOpcode == nil else {
                throw WebSocketProtocolError(closeCode: 1002, "a new message started inside a fragmented one")
            }
            if frame.fin { return try finish(frame.opcode, frame.payload) }
            try accept(frame.payload)
            fragmentedOpcode = frame.opcode
            return nil
        case .continuation:
            guard let opcode = fragmentedOpcode else {
                throw WebSocketProtocolError(closeCode: 1002, "a continuation frame without a message to continue")
            }
            try accept(frame.payload)
            guard frame.fin else { return nil }
            let message = fragments
            fragments = []
            fragmentedOpcode = nil
            return try finish(opcode, message)
        }
    }

    private mutating func accept(_ payload: [UInt8]) throws(WebSocketProtocolError) {
        guard fragments.count + payload.count <= maximumMessage else {
            throw WebSocketProtocolError(closeCode: 1009, "a message exceeds the limit of \(maximumMessage) bytes")
        }
        fragments.append(contentsOf: payload)
    }

    private func finish(_ opcode: WebSocketFrame.Opcode, _ payload: [UInt8]) throws(WebSocketProtocolError)
        -> WebSocketEvent
    {
        guard payload.count <= maximumMessage else {
            throw WebSocketProtocolError(closeCode: 1009, "a message exceeds the limit of \(maximumMessage) bytes")
        }
        if opcode == .binary { return .binary(payload) }
        guard let text = String(validating: payload, as: UTF8.self) else {
            throw WebSocketProtocolError(closeCode: 1007, "a text message is not valid UTF-8")
        }
        return .text(text)
    }

    /// Reads a close payload through ``WebSocketCloseCode/parse(closePayload:)``.
    static func close(_ payload: [UInt8]) throws(WebSocketProtocolError) -> WebSocketEvent {
        let (code, reason) = try WebSocketCloseCode.parse(closePayload: payload)
        return .close(code: code, reason: reason)
    }
}
