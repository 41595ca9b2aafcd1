/// The server's one percent-decoder (RFC 3986 §2.1), with the two readings a request target
/// has: in a path `+` is a literal character (`/agent/uploads/sp+x/original` names `sp+x`);
/// in a query's form encoding (`application/x-www-form-urlencoded`) it stands for a space.
/// A `%` not followed by two hex digits is kept as it is; bytes that are not UTF-8 become
/// U+FFFD, so a route's own rules (ids, names) refuse them with a 400 naming the field.
enum PercentDecoding {
    /// Decodes one path segment: `%XX` escapes only, `+` stays `+`.
    static func pathSegment(_ text: Substring) -> String {
        decode(text, plusIsSpace: false)
    }

    /// Decodes one query name or value: `%XX` escapes, and `+` as a space.
    static func queryComponent(_ text: Substring) -> String {
        decode(text, plusIsSpace: true)
    }

    private static func decode(_ text: Substring, plusIsSpace: Bool) -> String {
        let utf8 = text.utf8
        // Most segments have nothing to decode: returned as they are.
        guard utf8.contains(where: { $0 == UInt8(ascii: "%") || (plusIsSpace && $0 == UInt8(ascii: "+")) }) else {
            return String(text)
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(utf8.count)
        var index = utf8.startIndex
        while index != utf8.endIndex {
            let byte = utf8[index]
            utf8.formIndex(after: &index)
            if byte == UInt8(ascii: "+"), plusIsSpace {
                bytes.append(0x20)
            } else if byte == UInt8(ascii: "%"), index != utf8.endIndex, let high = hexValue(utf8[index]),
                case let next = utf8.index(after: index), next != utf8.endIndex, let low = hexValue(utf8[next])
            {
                bytes.append(high << 4 | low)
                index = utf8.index(after: next)
            } else {
                bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
