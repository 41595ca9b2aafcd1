import SybilCore

/// A position in the server's record log for `GET records?after=`: the decimal text of a
/// sequence number in `0...Int64.max`, without sign or leading zeros (`0`, `42`). Any other
/// text (`-1`, `042`, `+4`, `4.0`, `9223372036854775808`, empty) is not a cursor, so a hostile
/// value is refused before any arithmetic.
public struct RecordCursor: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The sequence number.
    public let sequence: Int64

    /// The cursor of `sequence` (which must not be negative).
    public init(sequence: Int64) {
        precondition(sequence >= 0, "record sequences start at 0")
        self.sequence = sequence
    }

    /// Parses the canonical text; `nil` for anything else.
    public init?(_ text: String) {
        let bytes = Array(text.utf8)
        guard (1...19).contains(bytes.count), bytes.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
        guard bytes.count == 1 || bytes[0] != 0x30, let value = Int64(text) else { return nil }
        sequence = value
    }

    /// The canonical text.
    public var description: String { String(sequence) }

    /// The cursor as contract JSON (a string).
    public var jsonValue: JSONValue { .string(description) }

    /// Decodes a cursor string.
    public static func decode(_ value: JSONValue, at path: JSONPath) throws(JSONError) -> RecordCursor {
        let text = try JSONValueReader.string(value, at: path)
        guard let cursor = RecordCursor(text) else {
            throw .contract(
                path,
                "must be a record cursor (digits, no leading zeros), got \(JSONWriter.quoted(String(text.prefix(40))))")
        }
        return cursor
    }

    /// Orders by sequence.
    public static func < (lhs: RecordCursor, rhs: RecordCursor) -> Bool { lhs.sequence < rhs.sequence }
}
