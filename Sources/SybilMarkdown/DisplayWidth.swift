/// How many terminal columns text takes: East Asian wide and fullwidth characters and emoji
/// take 2, combining marks and other zero-width characters 0, everything else 1. Measured per
/// grapheme cluster, so a ZWJ emoji sequence or a flag counts once (2) and a base letter
/// with combining accents counts 1. The wide ranges follow Unicode's East Asian Width (W and
/// F) for the scripts chat text uses; emoji come from the scalar's emoji properties.
public enum DisplayWidth {
    /// The columns `text` takes.
    public static func of<S: StringProtocol>(_ text: S) -> Int {
        var total = 0
        for character in text { total += of(character) }
        return total
    }

    /// The columns one grapheme cluster takes (0, 1 or 2).
    public static func of(_ character: Character) -> Int {
        let scalars = character.unicodeScalars
        guard let first = scalars.first else { return 0 }
        if scalars.count > 1 {
            for scalar in scalars where scalar.value == 0xFE0F || scalar.value == 0x200D {
                if first.properties.isEmoji { return 2 }
            }
            if (0x1F1E6...0x1F1FF).contains(first.value) { return 2 }  // a flag: two regional indicators
        }
        return width(of: first)
    }

    /// The columns of a lone scalar: 0 for controls, combining marks and format characters.
    static func width(of scalar: Unicode.Scalar) -> Int {
        let value = scalar.value
        if value < 0x20 || (0x7F..<0xA0).contains(value) { return 0 }
        if value < 0x300 { return 1 }
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .format: return 0
        default: break
        }
        if (0x1160...0x11FF).contains(value) { return 0 }  // Hangul medial vowels and finals
        if scalar.properties.isEmojiPresentation { return 2 }
        return isWide(value) ? 2 : 1
    }

    private static let wideRanges: [ClosedRange<UInt32>] = [
        0x1100...0x115F, 0x231A...0x231B, 0x2329...0x232A, 0x2E80...0x303E, 0x3041...0x33FF,
        0x3400...0x4DBF, 0x4E00...0x9FFF, 0xA000...0xA4CF, 0xA960...0xA97F, 0xAC00...0xD7A3,
        0xF900...0xFAFF, 0xFE10...0xFE19, 0xFE30...0xFE6F, 0xFF00...0xFF60, 0xFFE0...0xFFE6,
        0x1F300...0x1F64F, 0x1F900...0x1F9FF, 0x20000...0x2FFFD, 0x30000...0x3FFFD,
    ]

    private static func isWide(_ value: UInt32) -> Bool {
        guard value >= 0x1100 else { return false }
        for range in wideRanges where range.contains(value) { return true }
        return false
    }
}
