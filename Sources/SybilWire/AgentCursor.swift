import SybilCore

/// A position in the Agent room's history, as the server names it (`c-000001042`).
///
/// Cursors are opaque, but they order messages: a longer cursor is newer than a shorter
/// one, and cursors of the same length compare as strings (the server pads its numbers, and
/// a cursor grows a digit once the padding runs out).
public struct AgentCursor: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The cursor's text, sent back to the server unchanged.
    public let rawValue: String

    /// Wraps `rawValue`; it must be 1 to 128 visible ASCII characters.
    public init?(_ rawValue: String) {
        guard (1...128).contains(rawValue.utf8.count),
            rawValue.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F })
        else { return nil }
        self.rawValue = rawValue
    }

    public var description: String { rawValue }

    public static func < (lhs: AgentCursor, rhs: AgentCursor) -> Bool {
        let left = lhs.rawValue.utf8.count
        let right = rhs.rawValue.utf8.count
        return left != right ? left < right : lhs.rawValue < rhs.rawValue
    }

    /// Decodes a cursor string at `path`.
    public static func decode(_ value: JSONValue, at path: JSONPath) throws(JSONError) -> AgentCursor {
        let text = try JSONValueReader.string(value, at: path)
        guard let cursor = AgentCursor(text) else {
            throw .contract(
                path, "must be a cursor of 1 to 128 visible ASCII characters, got \(JSONWriter.quoted(text))")
        }
        return cursor
    }

    /// The cursor as JSON.
    public var jsonValue: JSONValue { .string(rawValue) }
}
