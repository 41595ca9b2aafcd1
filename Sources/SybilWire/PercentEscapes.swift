/// The one percent-decoder (RFC 3986 §2.1) of client and server: `%XX` escapes to bytes, with
/// the readings a peer's text needs — `+` as a space or as itself, a broken escape kept or
/// refused, and which other bytes may stand unescaped.
public enum PercentEscapes {
    /// What a broken `%` (not followed by two hex digits) does.
    public enum BrokenEscape: Sendable {
        /// It is kept as it is (a request target: the route's own rules refuse what it must).
        case keep
        /// The whole text is refused.
        case refuse
    }

    /// The bytes `text` stands for; `nil` when a broken escape is refused or a byte outside
    /// `allowed` stands unescaped.
    public static func decode(
        _ text: Substring.UTF8View, plusIsSpace: Bool, brokenEscape: BrokenEscape,
        allowed: (UInt8) -> Bool = { _ in true }
    ) -> [UInt8]? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.count)
        var index = text.startIndex
        while index != text.endIndex {
            let byte = text[index]
            text.formIndex(after: &index)
            if byte == UInt8(ascii: "%") {
                if index != text.endIndex, let high = hexValue(text[index]),
                    case let next = text.index(after: index), next != text.endIndex, let low = hexValue(text[next])
                {
                    bytes.append(high << 4 | low)
                    index = text.index(after: next)
                    continue
                }
                guard case .keep = brokenEscape else { return nil }
                bytes.append(byte)
            } else if byte == UInt8(ascii: "+"), plusIsSpace {
                bytes.append(0x20)
            } else {
                guard allowed(byte) else { return nil }
                bytes.append(byte)
            }
        }
        return bytes
    }

    /// The value of one hex digit.
    public static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
