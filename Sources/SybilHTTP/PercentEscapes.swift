/// The one percent-decoder (RFC 3986 §2.1) of client and server: `%XX` escapes to bytes, with
/// the readings a peer's text needs — `+` as a space or as itself, a broken escape kept or
/// refused, and which other bytes may stand unescaped.
///
/// A request target has two readings: in a path `+` is a literal character
/// (`/agent/uploads/sp+x/original` names `sp+x`); in a query's form encoding
/// (`application/x-www-form-urlencoded`) it stands for a space. A path segment is read strictly
/// (a route's parameter): a `%` not followed by two hex digits, or bytes that are not UTF-8,
/// make it unreadable. In a query a broken `%` is kept as it is and bytes that are not UTF-8
/// become U+FFFD, so the parameter's own rule refuses them with a 400 naming it.
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

    /// Decodes one path segment: `%XX` escapes only, `+` stays `+`; `nil` for a broken escape
    /// or bytes that are not UTF-8.
    public static func pathSegment(_ text: Substring) -> String? {
        guard text.utf8.contains(UInt8(ascii: "%")) else { return String(text) }
        return decode(text.utf8, plusIsSpace: false, brokenEscape: .refuse).flatMap {
            String(validating: $0, as: UTF8.self)
        }
    }

    /// Decodes one query name or value: `%XX` escapes, and `+` as a space.
    public static func queryComponent(_ text: Substring) -> String {
        // Most components have nothing to decode: returned as they are.
        guard text.utf8.contains(where: { $0 == UInt8(ascii: "%") || $0 == UInt8(ascii: "+") }) else {
            return String(text)
        }
        let bytes = decode(text.utf8, plusIsSpace: true, brokenEscape: .keep) ?? []
        return String(decoding: bytes, as: UTF8.self)
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
