/// Finds where a growing Markdown text can be cut so that rendering the parts one after
/// another gives what rendering the whole would: after a blank line outside a code fence (or
/// an HTML block that spans blank lines), before a line that starts at column 0 (an indented
/// line may continue a list item or a code block) and, while a list is open since the last
/// cut, is not a list item (a list continues past a blank line). Fed one complete line at a
/// time, as bytes.
struct MarkdownBlockBoundary {
    /// The open fence's character and length, while inside one.
    private var fence: (character: UInt8, length: Int)?
    /// The text that ends an open HTML block of CommonMark types 1 to 5 (`-->`, `</pre>`, …).
    private var htmlCloser: [UInt8]?
    private var afterBlankLine = false
    private var sawContent = false
    /// Whether a line since the last cut started a list item (at most 3 spaces in).
    private var listOpen = false

    /// Reads one line (without its newline); returns whether the text may be cut just
    /// before it.
    mutating func line(_ line: ArraySlice<UInt8>) -> Bool {
        if let open = fence {
            if Self.closesFence(line, open) { fence = nil }
            return false
        }
        if let closer = htmlCloser {
            if Self.contains(line, closer) { htmlCloser = nil }
            return false
        }
        if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }) {
            afterBlankLine = sawContent
            return false
        }
        let indent = line.prefix(while: { $0 == 0x20 }).count
        let startsItem = indent <= 3 && Self.startsListItem(line.dropFirst(indent))
        let cut = afterBlankLine && indent == 0 && line.first != 0x09 && !(startsItem && listOpen)
        if cut { listOpen = false }
        if startsItem { listOpen = true }
        afterBlankLine = false
        sawContent = true
        if indent <= 3 {
            let body = line.dropFirst(indent)
            fence = Self.opensFence(body)
            if fence == nil { htmlCloser = Self.htmlCloser(body) }
        }
        return cut
    }

    private static func opensFence(_ body: ArraySlice<UInt8>) -> (character: UInt8, length: Int)? {
        guard let first = body.first, first == UInt8(ascii: "`") || first == UInt8(ascii: "~") else { return nil }
        let length = body.prefix(while: { $0 == first }).count
        guard length >= 3 else { return nil }
        if first == UInt8(ascii: "`"), body.dropFirst(length).contains(first) { return nil }
        return (first, length)
    }

    private static func closesFence(_ line: ArraySlice<UInt8>, _ open: (character: UInt8, length: Int)) -> Bool {
        let indent = line.prefix(while: { $0 == 0x20 }).count
        guard indent <= 3 else { return false }
        let body = line.dropFirst(indent)
        let length = body.prefix(while: { $0 == open.character }).count
        return length >= open.length && body.dropFirst(length).allSatisfy { $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }
    }

    /// `-`, `*` or `+` and a space, or up to 9 digits, `.` or `)` and a space (or the end).
    private static func startsListItem(_ line: ArraySlice<UInt8>) -> Bool {
        guard let first = line.first else { return false }
        let second = line.dropFirst().first
        if first == UInt8(ascii: "-") || first == UInt8(ascii: "*") || first == UInt8(ascii: "+") {
            return second == nil || second == 0x20 || second == 0x09
        }
        let digits = line.prefix(while: { (0x30...0x39).contains($0) }).count
        guard digits >= 1, digits <= 9 else { return false }
        let rest = line.dropFirst(digits)
        guard let delimiter = rest.first, delimiter == UInt8(ascii: ".") || delimiter == UInt8(ascii: ")") else {
            return false
        }
        let after = rest.dropFirst().first
        return after == nil || after == 0x20 || after == 0x09
    }

    private static let htmlOpeners: [(opener: String, closer: String)] = [
        ("<script", "</script>"), ("<pre", "</pre>"), ("<style", "</style>"), ("<textarea", "</textarea>"),
        ("<!--", "-->"), ("<?", "?>"), ("<![CDATA[", "]]>"),
    ]

    /// The closer of an HTML block of types 1 to 5 that `body` opens and does not close.
    private static func htmlCloser(_ body: ArraySlice<UInt8>) -> [UInt8]? {
        guard body.first == UInt8(ascii: "<") else { return nil }
        let lower = body.map { (0x41...0x5A).contains($0) ? $0 | 0x20 : $0 }[...]
        for (opener, closer) in htmlOpeners {
            let openerBytes = Array(opener.utf8)
            guard lower.starts(with: openerBytes) else { continue }
            if opener.first == "<", opener.dropFirst().first?.isLetter == true {
                let next = lower.dropFirst(openerBytes.count).first
                guard next == nil || next == 0x20 || next == 0x09 || next == UInt8(ascii: ">") else { continue }
            }
            let closerBytes = Array(closer.utf8)
            return contains(lower.dropFirst(openerBytes.count), closerBytes) ? nil : closerBytes
        }
        let second = lower.dropFirst().first ?? 0
        if second == UInt8(ascii: "!"), let third = lower.dropFirst(2).first, (0x61...0x7A).contains(third) {
            return contains(lower, [UInt8(ascii: ">")]) ? nil : [UInt8(ascii: ">")]
        }
        return nil
    }

    /// Whether `needle` occurs in `haystack`, ASCII letters compared case-insensitively.
    private static func contains(_ haystack: ArraySlice<UInt8>, _ needle: [UInt8]) -> Bool {
        let lower = haystack.map { (0x41...0x5A).contains($0) ? $0 | 0x20 : $0 }
        guard lower.count >= needle.count else { return false }
        for start in 0...(lower.count - needle.count) where lower[start..<(start + needle.count)].elementsEqual(needle)
        {
            return true
        }
        return false
    }
}
