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
        var bytes = header(maskingKey: maskingKey)
        guard let maskingKey else {
            bytes.append(contentsOf: payload)
            return bytes
        }
        bytes.append(contentsOf: Self.masked(payload, key: maskingKey))
        return bytes
    }

    /// The frame's header: opcode, length and (when masked) the masking key; the payload
    /// follows it on the wire (``masked(_:key:)`` when masked). Writing the two with a gathered
    /// write sends a frame without copying its payload into one buffer.
    public func header(maskingKey: [UInt8]?) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(14)
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
        if let maskingKey {
            precondition(maskingKey.count == 4, "a masking key is 4 bytes")
            bytes.append(contentsOf: maskingKey)
        }
        return bytes
    }

    /// `bytes` XORed with the 4-byte `key` into a new array: the copy and the masking are one
    /// pass.
    public static func masked(_ bytes: [UInt8], key: [UInt8]) -> [UInt8] {
        masked(bytes[...], key: key)
    }

    /// `bytes` XORed with the 4-byte `key` into a new array, the key starting at its first
    /// byte: one piece of a payload masked at a time when the piece starts at a multiple of 4.
    static func masked(_ bytes: ArraySlice<UInt8>, key: [UInt8]) -> [UInt8] {
        precondition(key.count == 4, "a masking key is 4 bytes")
        let key32 = UInt32(key[0]) | UInt32(key[1]) << 8 | UInt32(key[2]) << 16 | UInt32(key[3]) << 24
        return [UInt8](unsafeUninitializedCapacity: bytes.count) { target, count in
            bytes.withUnsafeBytes { source in
                mask(source, into: UnsafeMutableRawBufferPointer(target), key: key32, phase: 0)
            }
            count = bytes.count
        }
    }

    /// XORs `bytes[start...]` with the 4-byte `key` (masking and unmasking are the same), eight
    /// bytes at a time.
    public static func applyMask(_ key: [UInt8], to bytes: inout [UInt8], from start: Int = 0) {
        precondition(key.count == 4, "a masking key is 4 bytes")
        let key32 = UInt32(key[0]) | UInt32(key[1]) << 8 | UInt32(key[2]) << 16 | UInt32(key[3]) << 24
        bytes.withUnsafeMutableBytes { raw in
            guard start < raw.count else { return }
            let tail = UnsafeMutableRawBufferPointer(rebasing: raw[start...])
            mask(UnsafeRawBufferPointer(tail), into: tail, key: key32, phase: 0)
        }
    }

    /// Writes `source` XOR the key into `target` (at least as long; may be the same memory),
    /// 32 bytes at a time. `key` holds key[0] in its low byte; `phase` is the position of
    /// `source`'s first byte in the payload, so byte i gets key[(phase + i) & 3].
    static func mask(
        _ source: UnsafeRawBufferPointer, into target: UnsafeMutableRawBufferPointer, key: UInt32, phase: Int
    ) {
        let shift = UInt32((phase & 3) * 8)
        let rotated = shift == 0 ? key : key >> shift | key << (32 - shift)
        let key64 = UInt64(rotated) | UInt64(rotated) << 32
        let count = source.count
        var index = 0
        let word = key64.littleEndian
        while index + 32 <= count {
            // Four words a step (the key repeats every 4 bytes, so each word takes the same key).
            let a = source.loadUnaligned(fromByteOffset: index, as: UInt64.self)
            let b = source.loadUnaligned(fromByteOffset: index + 8, as: UInt64.self)
            let c = source.loadUnaligned(fromByteOffset: index + 16, as: UInt64.self)
            let d = source.loadUnaligned(fromByteOffset: index + 24, as: UInt64.self)
            target.storeBytes(of: a ^ word, toByteOffset: index, as: UInt64.self)
            target.storeBytes(of: b ^ word, toByteOffset: index + 8, as: UInt64.self)
            target.storeBytes(of: c ^ word, toByteOffset: index + 16, as: UInt64.self)
            target.storeBytes(of: d ^ word, toByteOffset: index + 24, as: UInt64.self)
            index += 32
        }
        while index + 8 <= count {
            let word = source.loadUnaligned(fromByteOffset: index, as: UInt64.self)
            // Byte j of the little-endian word gets byte j of the rotated key.
            target.storeBytes(of: word ^ key64.littleEndian, toByteOffset: index, as: UInt64.self)
            index += 8
        }
        while index < count {
            target[index] = source[index] ^ UInt8(truncatingIfNeeded: rotated >> UInt32((index & 3) * 8))
            index += 1
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
///
/// Text is checked as UTF-8 as its bytes arrive, across the fragments of a message and within
/// a frame still arriving, so invalid text is refused (1007) at its first bad byte rather than
/// when its message is complete (RFC 6455 §8.1; Autobahn|Testsuite 6.4).
///
/// Once a frame's header is checked, its payload is read straight into the frame's own array
/// (unmasked on the way), however many appends bring it: a large payload is copied once, not
/// gathered in a buffer first. A frame that begins an append with nothing held before it is
/// read from the appended bytes directly; only what follows it is kept in a buffer.
public struct WebSocketFrameDecoder: Sendable {
    /// Whether frames must be masked (a server decoding a client's frames) or must not be.
    public let expectMasked: Bool
    /// The largest payload accepted in one frame.
    public let maximumPayload: Int
    /// Received bytes not yet part of a frame in progress: `buffer[start...]`.
    private var buffer: [UInt8] = []
    private var start = 0
    /// The frame whose header is read and whose payload is still arriving.
    private var partial: PartialFrame?
    /// The text message in progress, checked as its bytes arrive.
    private var text = WebSocketTextValidator()
    /// Whether a fragmented text message is in progress (its continuations are text).
    private var inText = false
    /// Invalid text met while bytes were appended: `nextFrame()` throws it, and keeps
    /// throwing it.
    private var failure: WebSocketProtocolError?

    /// A frame whose payload is filled as its bytes arrive.
    private struct PartialFrame {
        var fin: Bool
        var opcode: WebSocketFrame.Opcode
        /// Sized to the whole payload; `payload[..<filled]` holds the bytes received so far.
        var payload: [UInt8]
        var filled: Int
        /// The masking key (key[0] in the low byte), or `nil` for an unmasked frame.
        var key: UInt32?
        /// Whether the payload is text (a text frame, or a continuation of one).
        var isText: Bool

        /// A frame whose payload array is sized once (within `maximumPayload`) and filled as
        /// bytes come: every byte is written before the frame is handed out.
        init(_ header: Header, continuingText: Bool) {
            fin = header.fin
            opcode = header.opcode
            let length = header.length
            payload = [UInt8](unsafeUninitializedCapacity: length) { _, count in count = length }
            filled = 0
            key = header.key
            isText = header.opcode == .text || (header.opcode == .continuation && continuingText)
        }
    }

    /// A decoder for frames from a client (`expectMasked`) or from a server.
    public init(expectMasked: Bool, maximumPayload: Int) {
        self.expectMasked = expectMasked
        self.maximumPayload = maximumPayload
    }

    /// Adds received bytes: an array's, read in place (a caller in another module reaches
    /// this without the generic path's run-time type lookups).
    public mutating func append(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { append($0) }
    }

    /// Adds received bytes: a slice of a read buffer, read in place.
    public mutating func append(_ bytes: ArraySlice<UInt8>) {
        bytes.withUnsafeBytes { append($0) }
    }

    /// Adds received bytes.
    public mutating func append(_ bytes: some Collection<UInt8>) {
        let done = bytes.withContiguousStorageIfAvailable { append(UnsafeRawBufferPointer($0)) }
        if done == nil {
            Array(bytes).withUnsafeBytes { append($0) }
        }
    }

    private mutating func append(_ bytes: UnsafeRawBufferPointer) {
        var rest = bytes
        if var frame = partial {
            // The frame in progress comes first: `buffer` holds only bytes after its payload.
            partial = nil
            let taken = min(frame.payload.count - frame.filled, rest.count)
            fill(&frame, from: UnsafeRawBufferPointer(rebasing: rest[..<taken]))
            partial = frame
            rest = UnsafeRawBufferPointer(rebasing: rest[taken...])
        }
        if partial == nil, start == buffer.count, let found = try? header(in: rest) {
            // A frame that begins these bytes, with nothing held before it, is read from them
            // directly: its payload is copied once, into its own array, never into `buffer`.
            // A refused header is left to `nextFrame()`, which meets it again in `buffer`.
            let present = min(found.length, rest.count - found.size)
            var frame = begin(found)
            fill(&frame, from: UnsafeRawBufferPointer(rebasing: rest[found.size..<(found.size + present)]))
            partial = frame
            rest = UnsafeRawBufferPointer(rebasing: rest[(found.size + present)...])
        }
        guard !rest.isEmpty else { return }
        if start > 0, start == buffer.count {
            buffer.removeAll(keepingCapacity: true)
            start = 0
        }
        buffer.append(contentsOf: rest)
    }

    /// Bytes of the frame in progress still to come, when they are the next bytes of the
    /// stream: ``readPayload(_:)`` may read them in place. 0 otherwise. (A frame in progress
    /// has taken every byte the decoder held, so nothing is held after it; the check that
    /// nothing is, is defensive.)
    public var payloadAwaited: Int {
        guard let frame = partial, start == buffer.count, failure == nil else { return 0 }
        return frame.payload.count - frame.filled
    }

    /// Lets `read` write the next bytes of the stream straight into the frame in progress
    /// (at most ``payloadAwaited`` of them), where an append would copy them there from a
    /// buffer; they are unmasked in place and checked as text like appended bytes. `read`
    /// returns how many bytes it wrote, or `nil` when it wrote none. Returns whether bytes
    /// were read.
    public mutating func readPayload(_ read: (UnsafeMutableRawBufferPointer) -> Int?) -> Bool {
        guard payloadAwaited > 0, var frame = partial else { return false }
        partial = nil
        let offset = frame.filled
        let wanted = frame.payload.count - offset
        let count = frame.payload.withUnsafeMutableBytes { payload in
            read(UnsafeMutableRawBufferPointer(rebasing: payload[offset..<(offset + wanted)]))
        }
        guard let count, count > 0 else {
            partial = frame
            return false
        }
        precondition(count <= wanted, "read more bytes than the frame awaits")
        frame.filled += count
        let isText = frame.isText
        let key = frame.key
        let valid = frame.payload.withUnsafeMutableBytes { payload in
            let target = UnsafeMutableRawBufferPointer(rebasing: payload[offset..<(offset + count)])
            if let key { WebSocketFrame.mask(UnsafeRawBufferPointer(target), into: target, key: key, phase: offset) }
            return !isText || text.consume(UnsafeRawBufferPointer(target))
        }
        if !valid, failure == nil { failure = Self.invalidText }
        partial = frame
        return true
    }

    /// A frame whose header was just read: a text frame starts a new text message.
    private mutating func begin(_ header: Header) -> PartialFrame {
        if header.opcode == .text { text = WebSocketTextValidator() }
        return PartialFrame(header, continuingText: inText)
    }

    /// Copies `bytes` (unmasking them) into the frame after what it holds; text is checked on
    /// the way, and the first invalid byte is kept as ``failure``.
    private mutating func fill(_ frame: inout PartialFrame, from bytes: UnsafeRawBufferPointer) {
        if !Self.fill(&frame, from: bytes, text: &text), failure == nil { failure = Self.invalidText }
    }

    /// Copies `bytes` (unmasking them) into the frame after what it holds; `false` when they
    /// are text that cannot be UTF-8.
    private static func fill(
        _ frame: inout PartialFrame, from bytes: UnsafeRawBufferPointer, text: inout WebSocketTextValidator
    ) -> Bool {
        guard !bytes.isEmpty else { return true }
        let offset = frame.filled
        let isText = frame.isText
        let key = frame.key
        frame.filled += bytes.count
        return frame.payload.withUnsafeMutableBytes { payload in
            let target = UnsafeMutableRawBufferPointer(rebasing: payload[offset..<(offset + bytes.count)])
            if let key {
                WebSocketFrame.mask(bytes, into: target, key: key, phase: offset)
            } else {
                target.copyMemory(from: bytes)
            }
            return !isText || text.consume(UnsafeRawBufferPointer(target))
        }
    }

    private static let invalidText = WebSocketProtocolError(closeCode: 1007, "a text message is not valid UTF-8")

    /// Hands out a complete frame: a text message must end between code points, and a data
    /// frame decides whether continuations that follow are text.
    private mutating func complete(_ frame: PartialFrame) throws(WebSocketProtocolError) -> WebSocketFrame {
        if let failure { throw failure }
        if frame.opcode == .text || frame.opcode == .continuation || frame.opcode == .binary {
            if frame.isText, frame.fin, !text.isAtBoundary {
                failure = Self.invalidText
                throw Self.invalidText
            }
            inText = frame.isText && !frame.fin
        }
        return WebSocketFrame(fin: frame.fin, opcode: frame.opcode, payload: frame.payload)
    }

    /// A checked frame header: what precedes the payload.
    private struct Header {
        var fin: Bool
        var opcode: WebSocketFrame.Opcode
        /// The payload's length (within `maximumPayload`).
        var length: Int
        /// The masking key (key[0] in the low byte), or `nil` for an unmasked frame.
        var key: UInt32?
        /// The header's own length in bytes, masking key included.
        var size: Int
    }

    /// The header at the start of `bytes`, checked; `nil` when more bytes are needed.
    private func header(in bytes: UnsafeRawBufferPointer) throws(WebSocketProtocolError) -> Header? {
        let available = bytes.count
        guard available >= 2 else { return nil }
        let first = bytes[0]
        let second = bytes[1]
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
            length = Int(bytes[2]) << 8 | Int(bytes[3])
            offset = 4
        } else if length == 127 {
            guard available >= 10 else { return nil }
            var value: UInt64 = 0
            for index in 2..<10 { value = value << 8 | UInt64(bytes[index]) }
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
        guard masked else { return Header(fin: fin, opcode: opcode, length: length, key: nil, size: offset) }
        guard available >= offset + 4 else { return nil }
        let key =
            UInt32(bytes[offset]) | UInt32(bytes[offset + 1]) << 8 | UInt32(bytes[offset + 2]) << 16
            | UInt32(bytes[offset + 3]) << 24
        return Header(fin: fin, opcode: opcode, length: length, key: key, size: offset + 4)
    }

    /// The next complete frame, or `nil` when more bytes are needed.
    public mutating func nextFrame() throws(WebSocketProtocolError) -> WebSocketFrame? {
        if let failure { throw failure }
        if let frame = partial {
            guard frame.filled == frame.payload.count else { return nil }
            partial = nil
            return try complete(frame)
        }
        let parsed = buffer.withUnsafeBytes { raw in
            Result { () throws(WebSocketProtocolError) -> Header? in
                try header(in: UnsafeRawBufferPointer(rebasing: raw[start...]))
            }
        }
        guard let found = try parsed.get() else { return nil }
        let payloadStart = start + found.size
        let present = min(found.length, buffer.count - payloadStart)
        var frame = begin(found)
        var validator = text
        let valid = buffer.withUnsafeBytes { raw in
            Self.fill(
                &frame, from: UnsafeRawBufferPointer(rebasing: raw[payloadStart..<(payloadStart + present)]),
                text: &validator)
        }
        text = validator
        if !valid, failure == nil { failure = Self.invalidText }
        start = payloadStart + present
        if start == buffer.count {
            buffer.removeAll(keepingCapacity: buffer.capacity <= 1 << 16)
            start = 0
        } else if start > 1 << 16, start * 2 > buffer.count {
            buffer.removeSubrange(0..<start)
            start = 0
        }
        if let failure { throw failure }
        guard present == found.length else {
            partial = frame
            return nil
        }
        return try complete(frame)
    }
}
