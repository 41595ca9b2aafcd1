import SybilWire

/// The server's one percent-decoder (RFC 3986 §2.1), with the two readings a request target
/// has: in a path `+` is a literal character (`/agent/uploads/sp+x/original` names `sp+x`);
/// in a query's form encoding (`application/x-www-form-urlencoded`) it stands for a space.
/// A path segment is read strictly (a route's parameter, see ``PathParameters``): a `%` not
/// followed by two hex digits, or bytes that are not UTF-8, make it unreadable. In a query a
/// broken `%` is kept as it is and bytes that are not UTF-8 become U+FFFD, so the parameter's
/// own rule refuses them with a 400 naming it.
enum PercentDecoding {
    /// Decodes one path segment: `%XX` escapes only, `+` stays `+`; `nil` for a broken escape
    /// or bytes that are not UTF-8.
    static func strictPathSegment(_ text: Substring) -> String? {
        guard text.utf8.contains(UInt8(ascii: "%")) else { return String(text) }
        return PercentEscapes.decode(text.utf8, plusIsSpace: false, brokenEscape: .refuse).flatMap {
            String(validating: $0, as: UTF8.self)
        }
    }

    /// Decodes one query name or value: `%XX` escapes, and `+` as a space.
    static func queryComponent(_ text: Substring) -> String {
        decode(text, plusIsSpace: true)
    }

    private static func decode(_ text: Substring, plusIsSpace: Bool) -> String {
        // Most segments have nothing to decode: returned as they are.
        guard text.utf8.contains(where: { $0 == UInt8(ascii: "%") || (plusIsSpace && $0 == UInt8(ascii: "+")) })
        else { return String(text) }
        let bytes = PercentEscapes.decode(text.utf8, plusIsSpace: plusIsSpace, brokenEscape: .keep) ?? []
        return String(decoding: bytes, as: UTF8.self)
    }
}
