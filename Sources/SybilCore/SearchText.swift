/// How history search splits text into words, in one place for the index (SybilStore's
/// `ChatSearchQuery`) and the excerpt that marks the matches (SybilTimeline's `SearchMatcher`):
/// if the two disagreed, a hit could come back with nothing marked.
public enum SearchText {
    /// Whether `scalar` belongs to a word: letters, digits, marks and private-use characters
    /// (what FTS5's `unicode61` tokenizer keeps).
    public static func isWordScalar(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter,
            .decimalNumber, .letterNumber, .otherNumber,
            .nonspacingMark, .spacingMark, .enclosingMark, .privateUse:
            return true
        default:
            return false
        }
    }

    /// Whether `scalar` is a Han, Hiragana or Katakana character: these scripts are written
    /// without spaces, so each is its own token and a run of them matches anywhere.
    public static func isCJK(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x3040...0x30FF, 0x31F0...0x31FF, 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xF900...0xFAFF,
            0xFF66...0xFF9F, 0x20000...0x3134F:
            return true
        default:
            return false
        }
    }
}
