/// The 64-bit FNV-1a hash (Fowler–Noll–Vo), used where a stable, platform-independent
/// fingerprint is part of a contract, such as workspace attachment upload keys.
///
/// Not a cryptographic hash: never use it to authenticate data.
public struct FNV1a64: Sendable, Hashable {
    /// The FNV-1a 64-bit offset basis.
    public static let offsetBasis: UInt64 = 0xcbf2_9ce4_8422_2325
    /// The FNV 64-bit prime.
    public static let prime: UInt64 = 0x0000_0100_0000_01b3

    /// The hash of everything fed so far.
    public private(set) var value: UInt64 = FNV1a64.offsetBasis

    /// A hasher in its initial state (the hash of no bytes).
    public init() {}

    /// Feeds bytes into the hash.
    public mutating func update<Bytes: Sequence>(_ bytes: Bytes) where Bytes.Element == UInt8 {
        var hash = value
        for byte in bytes {
            hash ^= UInt64(byte)
            hash &*= Self.prime
        }
        value = hash
    }

    /// Feeds the UTF-8 bytes of a string into the hash.
    public mutating func update(utf8 string: String) {
        update(string.utf8)
    }

    /// The hash of a byte sequence.
    public static func hash<Bytes: Sequence>(_ bytes: Bytes) -> UInt64 where Bytes.Element == UInt8 {
        var hasher = FNV1a64()
        hasher.update(bytes)
        return hasher.value
    }

    /// The hash of a string's UTF-8 bytes.
    public static func hash(utf8 string: String) -> UInt64 {
        hash(string.utf8)
    }

    /// The hash as 16 lowercase hexadecimal digits, zero-padded.
    public var hexDigest: String {
        Hex.padded(value)
    }
}
