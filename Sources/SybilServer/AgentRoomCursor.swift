import SybilWire

/// How the Agent room turns message sequence numbers into cursors and back: `c-` and the
/// number padded to at least nine digits, so cursors order as ``AgentCursor`` compares them.
///
/// Only the canonical text of a sequence in `0...Int64.max` is a cursor: `c-000000042` is,
/// `c-42`, `c-0000000042`, `c-`, `c--1` and `c-9223372036854775808` are not. Nothing here
/// does arithmetic on a client's number, so no cursor can overflow.
enum AgentRoomCursor {
    /// Digits a cursor is padded to.
    static let minimumDigits = 9

    /// The cursor of `sequence` (which must not be negative).
    static func cursor(_ sequence: Int64) -> AgentCursor {
        precondition(sequence >= 0, "sequences start at 0")
        let digits = String(sequence)
        let text = "c-" + String(repeating: "0", count: max(0, minimumDigits - digits.count)) + digits
        guard let cursor = AgentCursor(text) else { preconditionFailure("\(text) is a valid cursor") }
        return cursor
    }

    /// The sequence a cursor names, or `nil` for text that is not a canonical cursor.
    static func sequence(of text: String) -> Int64? {
        let utf8 = text.utf8
        // "c-" and 9 to 19 digits: Int64.max has 19.
        guard (2 + minimumDigits...2 + 19).contains(utf8.count), text.hasPrefix("c-") else { return nil }
        let digits = utf8.dropFirst(2)
        guard digits.allSatisfy({ (0x30...0x39).contains($0) }),
            let value = Int64(String(decoding: digits, as: UTF8.self))
        else { return nil }
        return cursor(value).rawValue == text ? value : nil
    }

    /// An example for error messages.
    static let example = "c-000000042"
}
