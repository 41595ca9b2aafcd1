import Foundation

/// Finds a search's terms in a line the way the history index does: ignoring case and
/// diacritics, a term matches at the start of a word and marks the whole word; a Han, Hiragana
/// or Katakana term matches anywhere and marks what it matched.
struct SearchMatcher {
    private let words: [[Character]]
    private let runs: [[Character]]

    /// A matcher for `terms` (words as the query split them; blank terms are ignored).
    init(terms: [String]) {
        var words: [[Character]] = []
        var runs: [[Character]] = []
        for term in terms {
            let folded = Array(Self.fold(term))
            guard !folded.isEmpty else { continue }
            if term.unicodeScalars.contains(where: Self.isCJK) {
                runs.append(folded)
            } else {
                words.append(folded)
            }
        }
        self.words = words
        self.runs = runs
    }

    /// One flag per character of `line`: whether it is part of a match.
    func marks(in line: [Character]) -> [Bool] {
        var marks = [Bool](repeating: false, count: line.count)
        guard !words.isEmpty || !runs.isEmpty else { return marks }
        var cache: [Character: [Character]] = [:]
        let folded = line.map { character -> [Character] in
            if let known = cache[character] { return known }
            let value = Array(Self.fold(String(character)))
            cache[character] = value
            return value
        }
        let isWord = line.map { Self.isWordCharacter($0) && !Self.isCJK($0) }
        for start in line.indices where isWord[start] && (start == 0 || !isWord[start - 1]) {
            var end = start
            while end < line.count, isWord[end] { end += 1 }
            let word = Array(folded[start..<end].joined())
            if words.contains(where: { word.starts(with: $0) }) {
                for index in start..<end { marks[index] = true }
            }
        }
        for run in runs {
            var start = 0
            while start < line.count {
                var position = start
                var matched = 0
                while position < line.count, matched < run.count {
                    let piece = folded[position]
                    guard matched + piece.count <= run.count, Array(run[matched..<matched + piece.count]) == piece
                    else { break }
                    matched += piece.count
                    position += 1
                }
                if matched == run.count, position > start {
                    for index in start..<position { marks[index] = true }
                    start = position
                } else {
                    start += 1
                }
            }
        }
        return marks
    }

    /// Lowercased without diacritics.
    static func fold(_ text: String) -> String {
        if text.allSatisfy(\.isASCII) { return text.lowercased() }
        return text.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil)
    }

    private static func isWordCharacter(_ character: Character) -> Bool {
        guard let scalar = character.unicodeScalars.first else { return false }
        switch scalar.properties.generalCategory {
        case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter,
            .decimalNumber, .letterNumber, .otherNumber, .nonspacingMark, .spacingMark, .enclosingMark, .privateUse:
            return true
        default:
            return false
        }
    }

    private static func isCJK(_ character: Character) -> Bool {
        character.unicodeScalars.first.map(isCJK) ?? false
    }

    /// Han, Hiragana and Katakana (the index sets each apart; see `ChatSearchQuery` in SybilStore).
    static func isCJK(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x3040...0x30FF, 0x31F0...0x31FF, 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xF900...0xFAFF,
            0xFF66...0xFF9F, 0x20000...0x3134F:
            return true
        default:
            return false
        }
    }
}
