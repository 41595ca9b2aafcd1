/// Checks a text message's bytes as strict UTF-8 (RFC 3629) while they arrive, so a message
/// is refused at its first invalid byte instead of once it is complete (RFC 6455 §8.1: an
/// endpoint that finds a byte stream is not UTF-8 fails the connection). A code point may be
/// split across any two pieces; overlong forms, surrogates and values above U+10FFFF are
/// refused at the byte that makes them so.
public struct WebSocketTextValidator: Sendable, Hashable {
    /// Continuation bytes the current code point still needs (0 between code points).
    private var remaining: UInt8 = 0
    /// The range the next continuation byte must lie in (narrower than 0x80...0xBF right
    /// after a lead byte that restricts it).
    private var lower: UInt8 = 0x80
    private var upper: UInt8 = 0xBF

    /// A validator at the start of a message.
    public init() {}

    /// Whether the bytes so far end between code points: a message may end here.
    public var isAtBoundary: Bool { remaining == 0 }

    /// Checks the next bytes; `false` when they cannot be part of valid UTF-8 (the validator
    /// is then spent).
    public mutating func consume(_ bytes: UnsafeRawBufferPointer) -> Bool {
        let count = bytes.count
        var index = 0
        while index < count {
            if remaining == 0 {
                // Between code points: skip ASCII eight bytes at a time.
                while index + 8 <= count,
                    bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self) & 0x8080_8080_8080_8080 == 0
                {
                    index += 8
                }
                guard index < count else { return true }
                let byte = bytes[index]
                index += 1
                guard start(byte) else { return false }
            } else {
                let byte = bytes[index]
                index += 1
                guard byte >= lower, byte <= upper else { return false }
                remaining -= 1
                lower = 0x80
                upper = 0xBF
            }
        }
        return true
    }

    /// Checks the next bytes; `false` when they cannot be part of valid UTF-8.
    public mutating func consume(_ bytes: some Collection<UInt8>) -> Bool {
        if let result = bytes.withContiguousStorageIfAvailable({ consume(UnsafeRawBufferPointer($0)) }) {
            return result
        }
        return Array(bytes).withUnsafeBytes { consume($0) }
    }

    /// Reads a byte that begins a code point; `false` when no code point begins so.
    private mutating func start(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x00...0x7F: return true
        case 0xC2...0xDF: expect(1, 0x80, 0xBF)
        case 0xE0: expect(2, 0xA0, 0xBF)  // no overlong three-byte forms
        case 0xED: expect(2, 0x80, 0x9F)  // no surrogates
        case 0xE1...0xEC, 0xEE...0xEF: expect(2, 0x80, 0xBF)
        case 0xF0: expect(3, 0x90, 0xBF)  // no overlong four-byte forms
        case 0xF1...0xF3: expect(3, 0x80, 0xBF)
        case 0xF4: expect(3, 0x80, 0x8F)  // nothing above U+10FFFF
        default: return false  // continuation bytes, C0, C1, F5...FF
        }
        return true
    }

    private mutating func expect(_ continuations: UInt8, _ lower: UInt8, _ upper: UInt8) {
        remaining = continuations
        self.lower = lower
        self.upper = upper
    }
}
