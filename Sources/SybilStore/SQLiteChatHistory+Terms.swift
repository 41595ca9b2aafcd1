import Foundation

/// The term dictionary that keeps word-prefix search fast on a large history.
///
/// FTS5 answers a prefix query (`"plan"*`) by merging the whole doclist of every indexed word
/// with that prefix before it returns a row, unless a prefix index of exactly that length
/// exists (`prefix = '2 3'`): over a million messages a common 4-letter prefix took about 80 ms.
/// Every word the store indexes is therefore also kept in `chat_search_terms`, keyed by its
/// folded form (lowercased, diacritics removed). A query word of four or more letters that
/// expands to at most ``maximumExpansion`` words becomes `("planning" OR "planned" …)` of
/// exact words, which FTS5 streams newest first and stops after the limit. A shorter word
/// (served by the prefix index), a word with no entry, or one with more expansions stays a
/// prefix string, so the dictionary only ever speeds a search up.
///
/// The words are sent as written, so FTS5 folds and splits them exactly as it did the text.
/// Words are never removed (a stale one only finds nothing). The dictionary may hold more than
/// the index (that only adds an exact word that finds nothing) but never less, or a search
/// would miss rows the prefix string finds: a word longer than ``maximumDictionaryWord`` is kept
/// as its first characters and queried as a prefix string, and a word FTS5 splits (at a
/// combining mark it does not treat as a diacritic, e.g. a Devanagari vowel sign) is also kept
/// as its pieces.
extension SQLiteChatHistory {
    /// A query word with more dictionary words than this stays a prefix string.
    static let maximumExpansion = 64
    /// Longer words are kept as their first this many characters (queried as a prefix string).
    static let maximumDictionaryWord = 100
    /// Shorter query words use the FTS5 prefix index instead.
    static let minimumExpandedLength = 4

    /// Adds the words of `text` (each index row's text, before segmentation) to the dictionary.
    static func recordTerms(of text: String, _ database: SQLiteDatabase) throws {
        var seen = Set<String>()
        for term in ChatSearchQuery.words(in: text) where !term.isCJK && term.text.unicodeScalars.count > 1 {
            for piece in pieces(of: term.text) {
                let kept = piece.count > maximumDictionaryWord ? String(piece.prefix(maximumDictionaryWord)) : piece
                guard seen.insert(kept).inserted else { continue }
                try database.query(
                    "INSERT OR IGNORE INTO chat_search_terms (key, word) VALUES (?, ?)",
                    [.text(fold(kept)), .text(kept)])
            }
        }
    }

    /// `word`, and when it holds combining marks FTS5's `unicode61` does not keep in a token,
    /// also the pieces between them that are long enough to be expanded.
    static func pieces(of word: String) -> [String] {
        guard word.unicodeScalars.contains(where: splitsToken) else { return [word] }
        var pieces = [word]
        var current = String.UnicodeScalarView()
        for scalar in word.unicodeScalars {
            if splitsToken(scalar) {
                if String(current).count >= minimumExpandedLength { pieces.append(String(current)) }
                current = String.UnicodeScalarView()
            } else {
                current.append(scalar)
            }
        }
        if String(current).count >= minimumExpandedLength { pieces.append(String(current)) }
        return pieces
    }

    /// A combining mark outside the combining-diacritics blocks: a word character to Swift, a
    /// separator to `unicode61` (which keeps letters, numbers, private use and diacritics).
    private static func splitsToken(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .spacingMark, .enclosingMark:
            switch scalar.value {
            case 0x0300...0x036F, 0x1AB0...0x1AFF, 0x1DC0...0x1DFF, 0x20D0...0x20FF, 0xFE20...0xFE2F: return false
            default: return true
            }
        default:
            return false
        }
    }

    /// The MATCH expression for `query` (all words required), each long word expanded through
    /// the dictionary; with `column`, an expression matching rows whose `column` holds any word.
    static func expressions(for query: ChatSearchQuery, _ database: SQLiteDatabase) throws -> (
        all: String, anyInBody: String
    ) {
        var parts: [String] = []
        for term in query.terms {
            parts.append(try expression(for: term, database))
        }
        return (parts.joined(separator: " AND "), parts.map { "body : \($0)" }.joined(separator: " OR "))
    }

    private static func expression(for term: ChatSearchQuery.Term, _ database: SQLiteDatabase) throws -> String {
        let phrase = ChatSearchQuery.phrase(term)
        guard !term.isCJK, term.text.count >= minimumExpandedLength else { return phrase }
        let key = fold(term.text)
        let words = try database.query(
            "SELECT word FROM chat_search_terms WHERE key >= ? AND key < ? LIMIT ?",
            [.text(key), .text(key + "\u{10FFFF}"), .integer(Int64(maximumExpansion + 1))])
        guard !words.isEmpty, words.count <= maximumExpansion else { return phrase }
        // A kept word as long as the cap may be the start of a longer one: a prefix string.
        let quoted = words.compactMap { $0.first?.textValue }.map { word in
            word.count >= maximumDictionaryWord ? ChatSearchQuery.quoted(word) + "*" : ChatSearchQuery.quoted(word)
        }
        guard quoted.count == words.count else { return phrase }
        return "(" + quoted.joined(separator: " OR ") + ")"
    }

    /// Lowercased without diacritics (the dictionary's key).
    static func fold(_ word: String) -> String {
        if word.utf8.allSatisfy({ $0 < 0x80 }) { return word.lowercased() }
        return word.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil)
    }
}
