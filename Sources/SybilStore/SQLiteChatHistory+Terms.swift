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
/// The words are sent as written, so FTS5 folds them exactly as it folded the text. Words are
/// never removed (a stale one only finds nothing).
extension SQLiteChatHistory {
    /// A query word with more dictionary words than this stays a prefix string.
    static let maximumExpansion = 64
    /// Longer words are not kept (a query for them stays a prefix string).
    static let maximumDictionaryWord = 100
    /// Shorter query words use the FTS5 prefix index instead.
    static let minimumExpandedLength = 4

    /// Adds the words of `text` (each index row's text, before segmentation) to the dictionary.
    static func recordTerms(of text: String, _ database: SQLiteDatabase) throws {
        var seen = Set<String>()
        for term in ChatSearchQuery.words(in: text) where !term.isCJK && term.text.unicodeScalars.count > 1 {
            guard term.text.count <= maximumDictionaryWord, seen.insert(term.text).inserted else { continue }
            try database.query(
                "INSERT OR IGNORE INTO chat_search_terms (key, word) VALUES (?, ?)",
                [.text(fold(term.text)), .text(term.text)])
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
        let quoted = words.compactMap { $0.first?.textValue }.map(ChatSearchQuery.quoted)
        guard quoted.count == words.count else { return phrase }
        return "(" + quoted.joined(separator: " OR ") + ")"
    }

    /// Lowercased without diacritics (the dictionary's key).
    static func fold(_ word: String) -> String {
        if word.utf8.allSatisfy({ $0 < 0x80 }) { return word.lowercased() }
        return word.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil)
    }
}
