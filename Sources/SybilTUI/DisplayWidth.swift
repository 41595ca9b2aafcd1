/// The columns text takes on a terminal: 2 for East Asian wide and fullwidth characters and
/// for emoji drawn as emoji (emoji presentation, a text emoji with VS16, ZWJ sequences, flags),
/// 0 for control characters and for marks or format characters standing alone, 1 otherwise.
/// Measured per grapheme cluster (`Character`), so a combining mark adds nothing to its base.
public enum DisplayWidth {
    /// The columns one grapheme takes: 0, 1 or 2.
    public static func of(_ character: Character) -> Int {
        let scalars = character.unicodeScalars
        guard let first = scalars.first else { return 0 }
        if scalars.count == 1 { return of(scalar: first) }
        if isControl(first) { return 0 }
        for scalar in scalars {
            if scalar.properties.isEmojiPresentation { return 2 }
            if scalar == "\u{FE0F}", first.properties.isEmoji { return 2 }
        }
        let base = of(scalar: first)
        return base == 0 ? (scalars.contains { of(scalar: $0) == 2 } ? 2 : 1) : base
    }

    /// The columns `text` takes on one line.
    public static func of(_ text: some StringProtocol) -> Int {
        var total = 0
        for character in text { total += of(character) }
        return total
    }

    /// The longest prefix of `text` that fits in `columns`, and the columns it takes (a wide
    /// grapheme that would straddle the limit is left out).
    public static func prefix(of text: some StringProtocol, fitting columns: Int) -> (text: Substring, width: Int) {
        let string = Substring(text)
        var used = 0
        var end = string.startIndex
        for index in string.indices {
            let width = of(string[index])
            if used + width > columns { break }
            used += width
            end = string.index(after: index)
        }
        return (string[string.startIndex..<end], used)
    }

    /// `text` cut to `columns`, ending in "…" when it was cut.
    public static func truncate(_ text: some StringProtocol, to columns: Int) -> String {
        guard columns > 0 else { return "" }
        if of(text) <= columns { return String(text) }
        let (head, _) = prefix(of: text, fitting: columns - 1)
        return head + "…"
    }

    /// The width of a single scalar.
    static func of(scalar: Unicode.Scalar) -> Int {
        if isControl(scalar) { return 0 }
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .format: return 0
        default: break
        }
        if scalar.properties.isEmojiPresentation { return 2 }
        return isWide(scalar.value) ? 2 : 1
    }

    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (scalar.value >= 0x7F && scalar.value < 0xA0)
    }

    /// East Asian Wide (W) and Fullwidth (F) ranges of Unicode 15's EastAsianWidth.txt that
    /// are not emoji (those are covered by emoji presentation).
    private static let wideRanges: [ClosedRange<UInt32>] = [
        0x1100...0x115F, 0x2329...0x232A, 0x2E80...0x2E99, 0x2E9B...0x2EF3, 0x2F00...0x2FD5,
        0x2FF0...0x2FFB, 0x3000...0x303E, 0x3041...0x3096, 0x3099...0x30FF, 0x3105...0x312F,
        0x3131...0x318E, 0x3190...0x31E3, 0x31F0...0x321E, 0x3220...0x3247, 0x3250...0x4DBF,
        0x4E00...0xA48C, 0xA490...0xA4C6, 0xA960...0xA97C, 0xAC00...0xD7A3, 0xF900...0xFAFF,
        0xFE10...0xFE19, 0xFE30...0xFE52, 0xFE54...0xFE66, 0xFE68...0xFE6B, 0xFF01...0xFF60,
        0xFFE0...0xFFE6, 0x16FE0...0x16FE4, 0x17000...0x187F7, 0x18800...0x18CD5, 0x1B000...0x1B122,
        0x1F200...0x1F202, 0x1F210...0x1F23B, 0x1F240...0x1F248, 0x1F250...0x1F251,
        0x20000...0x2FFFD, 0x30000...0x3FFFD,
    ]

    private static func isWide(_ value: UInt32) -> Bool {
        if value < 0x1100 { return false }
        var low = 0
        var high = wideRanges.count - 1
        while low <= high {
            let middle = (low + high) / 2
            let range = wideRanges[middle]
            if value < range.lowerBound {
                high = middle - 1
            } else if value > range.upperBound {
                low = middle + 1
            } else {
                return true
            }
        }
        return false
    }
}
