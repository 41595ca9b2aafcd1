import Foundation
import SybilCore

/// Finds a search's terms in a line the way the history index does: ignoring case and
/// diacritics, a term matches at the start of a word and marks the whole word; a Han, Hiragana
/// or Katakana term matches anywhere and marks what it matched.
struct SearchMatcher {
    private let words: [[Character]]
    private let runs: [[Character]]
    /// The first folded character of every word term (a cheap test before folding a word).
    private let firsts: Set<Character>

    /// A matcher for `terms` (words as the query split them; blank terms are ignored).
    init(terms: [String]) {
        var words: [[Character]] = []
        var runs: [[Character]] = []
        for term in terms where !term.isEmpty {
            if term.unicodeScalars.contains(where: SearchText.isCJK) {
                runs.append(Array(term))
            } else if let folded = Optional(Array(Self.fold(term))), !folded.isEmpty {
                words.append(folded)
            }
        }
        self.words = words
        self.runs = runs
        firsts = Set(words.compactMap(\.first))
    }

    /// One flag per character of `line`: whether it is part of a match.
    func marks(in line: [Character]) -> [Bool] {
        var marks = [Bool](repeating: false, count: line.count)
        if !words.isEmpty { markWords(in: line, &marks) }
        for run in runs { markRuns(of: run, in: line, &marks) }
        return marks
    }

    /// Marks every word that starts with a word term (folded).
    private func markWords(in line: [Character], _ marks: inout [Bool]) {
        let isWord = line.map { Self.isWordCharacter($0) && !Self.isCJK($0) }
        var start = 0
        while start < line.count {
            guard isWord[start] else {
                start += 1
                continue
            }
            var end = start + 1
            while end < line.count, isWord[end] { end += 1 }
            if let first = Self.fold(line[start]).first, firsts.contains(first) {
                let word = Array(Self.fold(String(line[start..<end])))
                if words.contains(where: { word.starts(with: $0) }) {
                    for index in start..<end { marks[index] = true }
                }
            }
            start = end
        }
    }

    /// Marks every place `run` (Han, Hiragana or Katakana, compared as written) occurs.
    private func markRuns(of run: [Character], in line: [Character], _ marks: inout [Bool]) {
        guard !run.isEmpty, run.count <= line.count else { return }
        var start = 0
        while start + run.count <= line.count {
            if line[start] == run[0], line[start..<start + run.count].elementsEqual(run) {
                for index in start..<start + run.count { marks[index] = true }
                start += run.count
            } else {
                start += 1
            }
        }
    }

    /// `character` lowercased without diacritics (ASCII without Foundation).
    static func fold(_ character: Character) -> String {
        if let ascii = character.asciiValue {
            return String(Character(Unicode.Scalar(ascii >= 65 && ascii <= 90 ? ascii + 32 : ascii)))
        }
        return fold(String(character))
    }

    /// Lowercased without diacritics.
    static func fold(_ text: String) -> String {
        if text.allSatisfy(\.isASCII) { return text.lowercased() }
        return text.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil)
    }

    private static func isWordCharacter(_ character: Character) -> Bool {
        if let ascii = character.asciiValue {
            return (ascii >= 48 && ascii <= 57) || (ascii >= 65 && ascii <= 90) || (ascii >= 97 && ascii <= 122)
        }
        return character.unicodeScalars.first.map(SearchText.isWordScalar) ?? false
    }

    private static func isCJK(_ character: Character) -> Bool {
        if character.asciiValue != nil { return false }
        return character.unicodeScalars.first.map(SearchText.isCJK) ?? false
    }
}
