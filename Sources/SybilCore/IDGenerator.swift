/// Makes identifiers for operations, mutations and requests. Injected so that tests and
/// `--seed` runs produce the same identifiers every time.
public protocol IDGenerator: Sendable {
    /// A new identifier, unique within this generator's lifetime.
    func makeID() -> String
}

/// RFC 9562 version-4 UUIDs (lowercase, hyphenated) drawn from a ``RandomSource``.
///
/// With ``SystemRandomSource`` this is the live generator; with ``SeededRandomSource`` it is
/// deterministic.
public struct RandomUUIDGenerator<Source: RandomSource>: IDGenerator {
    /// Where the random bits come from.
    public let source: Source

    /// Creates a generator over `source`.
    public init(source: Source) {
        self.source = source
    }

    /// A new version-4 UUID string such as `1b4e28ba-2fa1-4d2e-883f-0016d3cca427`.
    public func makeID() -> String {
        var high = source.nextUInt64()
        var low = source.nextUInt64()
        high = (high & ~0xf000) | 0x4000  // version 4
        low = (low & ~(0xc000 << 48)) | (0x8000 << 48)  // variant 10xx
        let hex = Hex.padded(high) + Hex.padded(low)
        let chars = Array(hex)
        return String(chars[0..<8]) + "-" + String(chars[8..<12]) + "-" + String(chars[12..<16]) + "-"
            + String(chars[16..<20]) + "-" + String(chars[20..<32])
    }
}

extension RandomUUIDGenerator where Source == SystemRandomSource {
    /// The live generator, backed by the system's secure random source.
    public init() {
        self.init(source: SystemRandomSource())
    }
}
