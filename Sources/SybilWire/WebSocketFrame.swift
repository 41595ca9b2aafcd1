/// One WebSocket frame (RFC 6455 §5.2).
public struct WebSocketFrame: Sendable, Hashable {
    /// Frame opcodes.
    public enum Opcode: UInt8, Sendable, Hashable {
        /// Continues a fragmented message.
        case continuation = 0x0
        /// UTF-8 text (first fragment).
        case text = 0x1
        /// Binary data (first fragment).
        case binary = 0x2
        /// Close, with an optional code and reason.
        case close = 0x8
        /// Ping.
        case ping = 0x9
        /// Pong.
        case pong = 0xA

        /// Close, ping and pong.
        public var isControl: Bool { rawValue & 0x8 != 0 }
    }

    /// Whether this is the last fragment of its message.
    public var fin: Bool
    /// What the payload is.
    public var opcode: Opcode
    /// The payload, unmasked.
    public var payload: [UInt8]

    /// Creates a frame.
    public init(fin: Bool = true, opcode: Opcode, payload: [UInt8]) {
        self.fin = fin
        self.opcode = opcode
        self.payload = payload
    }

    /// The frame's bytes: masked with `maskingKey` (clients must mask, servers must not).
    public func encoded(maskingKey: [UInt8]?) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(payload.count + 14)
        bytes.append((fin ? 0x80 : 0) | opcode.rawValue)
        let maskBit: UInt8 = maskingKey == nil ? 0 : 0x80
        switch payload.count {
        case 0..<126:
            bytes.append(maskBit | UInt8(payload.count))
        case 126...0xFFFF:
            bytes.append(maskBit | 126)
            bytes.append(UInt8(payload.count >> 8))
            bytes.append(UInt8(payload.count & 0xFF))
        default:
            bytes.append(maskBit | 127)
            for shift in stride(from: 56, through: 0, by: -8) {
                bytes.append(UInt8((UInt64(payload.count) >> UInt64(shift)) & 0xFF))
            }
        }
        guard let maskingKey else {
            bytes.append(contentsOf: payload)
            return bytes
        }
        precondition(maskingKey.count == 4, "a masking key is 4 bytes")
        bytes.append(contentsOf: maskingKey)
        let start = bytes.count
        bytes.append(contentsOf: payload)
        Self.applyMask(maskingKey, to: &bytes, from: start)
        return bytes
    }

    /// XORs `bytes[start...]` with the 4-byte `key` (masking and unmasking are the same), eight
    /// bytes at a time.
    public static func applyMask(_ key: [UInt8], to bytes: inout [UInt8], from start: Int = 0) {
        precondition(key.count == 4, "a masking key is 4 bytes")
        let key32 = UInt64(key[0]) | UInt64(key[1]) << 8 | UInt64(key[2]) << 16 | UInt64(key[3]) << 24
        let key64 = key32 | key32 << 32
        bytes.withUnsafeMutableBytes { raw in
            var index = start
            while index + 8 <= raw.count {
                let word = raw.loadUnaligned(fromByteOffset: index, as: UInt64.self)
                // The key is laid out little-endian from `start`, so byte i gets key[(i - start) & 3].
                raw.storeBytes(of: word ^ key64.littleEndian, toByteOffset: index, as: UInt64.self)
                index += 8
            }
            while index < raw.count {
                raw[index] ^= key[(index - start) & 3]
                index += 1
            }
        }
    }
}

/// Why a peer's frames break RFC 6455; the close code to send back is attached.
public struct WebSocketProtocolError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The close code for this violation (1002 protocol error, 1007 bad data, 1009 too big).
    public var closeCode: UInt16
    /// What was wrong.
    public var message: String

    /// Creates an error.
    public init(closeCode: UInt16, _ message: String) {
        self.closeCode = closeCode
        self.message = message
    }

    /// `message (close code N)`.
    public var description: String { "\(message) (close code \(closeCode))" }
}

/// Splits bytes into frames incrementally (RFC 6455 §5.2): checks reserved bits, opcodes,
/// masking direction, control-frame rules and the size limit; unmasks payloads.
public struct WebSocketFrameDecoder: Sendable {
    /// Whether frames must be masked (a server decoding a client's frames) or must not be.
    public let expectMasked: Bool
    /// The largest payload accepted in one frame.
    public let maximumPayload: Int
    private var buffer: [UInt8] = []
    private var start = 0

    /// A decoder for frames from a client (`expectMasked`) or from a server.
    public init(expectMasked: Bool, maximumPayload: Int) {
        self.expectMasked = expectMasked
        self.maximumPayload = maximumPayload
    }

    /// Adds received bytes.
    public mutating func append(_ bytes: some Collection<UInt8>) {
        if start > 0, start == buffer.count {
            buffer.removeAll(keepingCapacity: true)
            start = 0
        }
        buffer.append(contentsOf: bytes)
    }

    /// The next complete frame, or `nil` when more bytes are needed.
    public mutating func nextFrame() throws(WebSocketProtocolError) -> WebSocketFrame? {
        let available = buffer.count - start
        guard available >= 2 else { return nil }
        let first = buffer[start]
        let second = buffer[start + 1]
        guard first & 0x70 == 0 else {
            throw WebSocketProtocolError(closeCode: 1002, "reserved bits set without an extension")
        }
        guard let opcode = WebSocketFrame.Opcode(rawValue: first & 0x0F) else {
            throw WebSocketProtocolError(closeCode: 1002, "unknown opcode \(first & 0x0F)")
        }
        let fin = first & 0x80 != 0
        let masked = second & 0x80 != 0
        guard masked == expectMasked else {
            throw WebSocketProtocolError(
                closeCode: 1002, expectMasked ? "a client frame was not masked" : "a server frame was masked")
        }
        var length = Int(second & 0x7F)
        var offset = 2
        if length == 126 {
            guard available >= 4 else { return nil }
            length = Int(buffer[start + 2]) << 8 | Int(buffer[start + 3])
            offset = 4
        } else if length == 127 {
            guard available >= 10 else { return nil }
            var value: UInt64 = 0
            for index in 2..<10 { value = value << 8 | UInt64(buffer[start + index]) }
            guard value >> 63 == 0 else {
                throw WebSocketProtocolError(closeCode: 1002, "a 64-bit length with its top bit set")
            }
            guard value <= UInt64(maximumPayload) else {
                throw WebSocketProtocolError(
                    closeCode: 1009, "a frame of \(value) bytes exceeds the limit of \(maximumPayload)")
            }
            length = Int(value)
            offset = 10
        }
        if opcode.isControl {
            guard fin else { throw WebSocketProtocolError(closeCode: 1002, "a control frame was fragmented") }
            guard length <= 125 else {
                throw WebSocketProtocolError(closeCode: 1002, "a control frame longer than 125 bytes")
            }
        }
        guard length <= maximumPayload else {
            throw WebSocketProtocolError(
                closeCode: 1009, "a frame of \(length) bytes exceeds the limit of \(maximumPayload)")
        }
        let maskLength = masked ? 4 : 0
        guard available >= offset + maskLength + length else { return nil }
        let payloadStart = start + offset + maskLength
        var payload = Array(buffer[payloadStart..<(payloadStart + length)])
        if masked {
            WebSocketFrame.applyMask(Array(buffer[(start + offset)..<(start + offset + 4)]), to: &payload)
        }
        start = payloadStart + length
        if start > 1 << 16, start * 2 > buffer.count {
            buffer.removeSubrange(0..<start)
            start = 0
        }
        return WebSocketFrame(fin: fin, opcode: opcode, payload: payload)
    }
}
