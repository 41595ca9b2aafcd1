/// A JSON member name compared as RFC 8259 compares names: code point by code point (here,
/// byte by byte in UTF-8, which is the same thing for valid text).
///
/// Swift's `String ==` and `String` hashing use Unicode canonical equivalence instead, under
/// which the Kelvin sign `"\u{212A}"` equals `"K"` and `"é"` equals `"e\u{301}"`; a reader that
/// used them would accept `"call\u212aey"` as `callKey` and refuse `{"xK":1,"x\u212a":2}` as a
/// duplicate. Every comparison of peer-supplied member names goes through this type.
public struct JSONMemberName: Sendable, Hashable, CustomStringConvertible {
    /// The name as read.
    public let text: String

    /// Wraps a name.
    public init(_ text: String) {
        self.text = text
    }

    /// The name itself.
    public var description: String { text }

    /// Whether the names are the same code points.
    public static func == (lhs: JSONMemberName, rhs: JSONMemberName) -> Bool {
        equal(lhs.text, rhs.text)
    }

    /// Hashes the name's UTF-8 bytes.
    public func hash(into hasher: inout Hasher) {
        Self.hash(text, into: &hasher)
    }

    /// Whether `lhs` and `rhs` are the same code points (not merely canonically equivalent):
    /// the same UTF-8 bytes, since valid UTF-8 encodes each code point one way. The byte
    /// counts decide most unequal names at once.
    public static func equal(_ lhs: String, _ rhs: String) -> Bool {
        let left = lhs.utf8
        let right = rhs.utf8
        guard left.count == right.count else { return false }
        let contiguous = left.withContiguousStorageIfAvailable { leftBytes in
            right.withContiguousStorageIfAvailable { rightBytes in leftBytes.elementsEqual(rightBytes) }
        }
        if let contiguous, let result = contiguous { return result }
        return left.elementsEqual(right)
    }

    /// Feeds `text`'s UTF-8 bytes and their count to `hasher`, consistent with ``equal(_:_:)``.
    public static func hash(_ text: String, into hasher: inout Hasher) {
        let utf8 = text.utf8
        let hashed: Void? = utf8.withContiguousStorageIfAvailable { bytes in
            hasher.combine(bytes: UnsafeRawBufferPointer(bytes))
        }
        if hashed == nil {
            for byte in utf8 { hasher.combine(byte) }
        }
        hasher.combine(utf8.count)
    }
}
