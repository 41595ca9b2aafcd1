/// How many terminal columns text takes: East Asian wide and fullwidth characters and emoji take
/// two, combining marks, controls and zero-width format characters none, everything else one.
/// Measured per grapheme cluster (a `Character`): a letter with combining accents counts one, a
/// ZWJ emoji sequence, an emoji with a variation selector or a flag counts two. The wide ranges
/// follow Unicode's East Asian Width (W and F) for the scripts chat text uses; emoji come from
/// the scalar's emoji properties. The search excerpt, the Markdown renderer and the terminal
/// front ends all measure with this one table, so their columns agree.
public enum DisplayWidth {
    /// The columns `text` takes.
    public static func columns(of text: some StringProtocol) -> Int {
        var total = 0
        for character in text { total += columns(of: character) }
        return total
    }

    /// The columns one grapheme cluster takes (0, 1 or 2).
    public static func columns(of character: Character) -> Int {
        if let ascii = character.asciiValue { return ascii < 0x20 || ascii == 0x7F ? 0 : 1 }
        let scalars = character.unicodeScalars
        guard let first = scalars.first else { return 0 }
        if scalars.count > 1 {
            if first.properties.isEmoji, scalars.contains(where: { $0.value == 0xFE0F || $0.value == 0x200D }) {
                return 2
            }
            if (0x1F1E6...0x1F1FF).contains(first.value) { return 2 }  // a flag: two regional indicators
        }
        var widest = 0
        for scalar in scalars {
            widest = max(widest, columns(of: scalar))
            if widest == 2 { return 2 }
        }
        return widest
    }

    /// The columns of a lone scalar: 0 for controls, combining marks and format characters.
    private static func columns(of scalar: Unicode.Scalar) -> Int {
        let value = scalar.value
        if value < 0x20 || (0x7F..<0xA0).contains(value) { return 0 }
        if value < 0x300, value != 0xAD { return 1 }  // the soft hyphen is a format character
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .format, .control: return 0
        default: break
        }
        if (0x1160...0x11FF).contains(value) { return 0 }  // Hangul medial vowels and finals
        if scalar.properties.isEmojiPresentation || isEastAsianWide(value) { return 2 }
        return 1
    }

    /// East Asian Width W or F (the blocks that matter in chat text).
    private static func isEastAsianWide(_ value: UInt32) -> Bool {
        switch value {
        case 0x1100...0x115F, 0x231A...0x231B, 0x2329...0x232A, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF,
            0x4E00...0x9FFF, 0xA000...0xA4CF, 0xA960...0xA97F, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE10...0xFE19,
            0xFE30...0xFE6F, 0xFF00...0xFF60, 0xFFE0...0xFFE6, 0x1F300...0x1F64F, 0x1F900...0x1F9FF,
            0x20000...0x2FFFD, 0x30000...0x3FFFD:
            return true
        default:
            return false
        }
    }
}
