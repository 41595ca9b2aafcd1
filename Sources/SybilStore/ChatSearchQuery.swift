import SybilCore

/// What a person typed into history search, made into a safe FTS5 word-prefix query
/// (SPEC §5.4): `plan` finds `planning`, and no text at all can produce a syntax error.
///
/// Words are runs of letters, digits and marks; everything else (quotes, hyphens, `*`,
/// parentheses, emoji, punctuation) only separates words. Every word becomes a quoted string
/// with the prefix operator (`"plan"*`), so `AND`, `OR`, `NOT` and `NEAR` are plain words; the
/// words must all match in one item (joined by `AND`). The store may replace a long word's
/// prefix string by the exact words it stands for (`SQLiteChatHistory+Terms.swift`).
///
/// Chinese and Japanese have no spaces between words. Han, Hiragana and Katakana characters are
/// indexed one character per token (``indexText(_:)``) and a run of them in the query becomes
/// a phrase of its characters, so `天气` finds `今天天气很好` anywhere in the text (a
/// substring match, like these languages' own search boxes), while Latin, Cyrillic, Arabic and
/// Korean words match as word prefixes. Diacritics and case are ignored (`unicode61
/// remove_diacritics 2`): `cafe` finds `Café`.
public struct ChatSearchQuery: Sendable, Hashable {
    /// At most this many words are searched; later ones are ignored (bounds a query's cost).
    public static let maximumTerms = 16
    /// A longer word is cut to this many characters (still a prefix of what was typed).
    public static let maximumTermLength = 64

    /// One word of the query.
    public struct Term: Sendable, Hashable {
        /// The word as typed.
        public var text: String
        /// Whether it is a run of Han, Hiragana or Katakana (matched as a substring).
        public var isCJK: Bool
    }

    /// The words, in the order typed.
    public let terms: [Term]

    /// Reads `text`.
    public init(_ text: String) {
        terms = Self.words(in: text).prefix(Self.maximumTerms).map {
            Term(text: String($0.text.prefix(Self.maximumTermLength)), isCJK: $0.isCJK)
        }
    }

    /// Every word of `text` in order, unbounded: runs of word characters, a run of Han,
    /// Hiragana or Katakana kept apart from the letters around it.
    static func words(in text: String) -> [Term] {
        var terms: [Term] = []
        var current = String.UnicodeScalarView()
        var currentIsCJK = false
        func flush() {
            if !current.isEmpty { terms.append(Term(text: String(current), isCJK: currentIsCJK)) }
            current = String.UnicodeScalarView()
        }
        for scalar in text.unicodeScalars {
            guard SearchText.isWordScalar(scalar) else {
                flush()
                continue
            }
            let isCJK = SearchText.isCJK(scalar)
            if !current.isEmpty, isCJK != currentIsCJK { flush() }
            currentIsCJK = isCJK
            current.append(scalar)
        }
        flush()
        return terms
    }

    /// Whether there is nothing to search for (then no SQL runs and nothing is found).
    public var isEmpty: Bool { terms.isEmpty }

    /// The FTS5 MATCH expression, or `nil` when there is nothing to search for: every word as
    /// a prefix string, all required.
    public var matchExpression: String? {
        isEmpty ? nil : terms.map(Self.phrase).joined(separator: " AND ")
    }

    /// The text the index holds for `text`: the same text with every Han, Hiragana and Katakana
    /// character set apart by spaces, so each is a token. (Stable: changing it needs a
    /// migration that rebuilds the index.)
    public static func indexText(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: SearchText.isCJK) else { return text }
        var result = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            if SearchText.isCJK(scalar) {
                result.append(" ")
                result.append(scalar)
                result.append(" ")
            } else {
                result.append(scalar)
            }
        }
        return String(result)
    }

    /// `"word"*`, or `"天 气"*` for a CJK run.
    static func phrase(_ term: Term) -> String {
        let body = term.isCJK ? term.text.unicodeScalars.map { String($0) }.joined(separator: " ") : term.text
        return quoted(body) + "*"
    }

    /// `word` as an FTS5 string: in double quotes, a quote inside doubled (none can occur in a
    /// word, as quotes separate words, but the quoting never relies on that).
    static func quoted(_ word: String) -> String {
        "\"" + word.replacingAll("\"", with: "\"\"") + "\""
    }
}

extension String {
    fileprivate func replacingAll(_ target: Character, with replacement: String) -> String {
        var result = ""
        for character in self {
            if character == target { result += replacement } else { result.append(character) }
        }
        return result
    }
}
