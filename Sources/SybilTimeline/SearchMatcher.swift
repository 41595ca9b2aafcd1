import Foundation
import SybilCore

/// Finds a search's terms in a line the way the history index does: ignoring case and
/// diacritics, a term matches at the start of a word and marks the whole word; a Han, Hiragana
/// or Katakana term matches anywhere and marks what it matched.
struct SearchMatcher {
    private let words: [[Character]]
    /// The word terms that are ASCII once folded, as bytes: the only ones ASCII text can match.
    private let asciiWords: [[UInt8]]
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
        asciiWords = words.compactMap { word in
            let bytes = word.compactMap(\.asciiValue)
            return bytes.count == word.count ? bytes : nil
        }
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

    /// One flag per byte of an ASCII `line`: whether it is part of a match. The same rule as
    /// ``marks(in:)``: a word of letters and digits that starts with a word term, ignoring case
    /// (Han, Hiragana and Katakana terms cannot occur in ASCII).
    func marks(inASCII line: [UInt8]) -> [Bool] {
        var marks = [Bool](repeating: false, count: line.count)
        guard !asciiWords.isEmpty else { return marks }
        var start = 0
        while start < line.count {
            guard Self.isWordByte(line[start]) else {
                start += 1
                continue
            }
            var end = start + 1
            while end < line.count, Self.isWordByte(line[end]) { end += 1 }
            let word = line[start..<end]
            let matches = asciiWords.contains { term in
                term.count <= word.count && zip(term, word).allSatisfy { $0 == Self.lowercased($1) }
            }
            if matches {
                for index in start..<end { marks[index] = true }
            }
            start = end
        }
        return marks
    }

    /// An ASCII letter or digit.
    private static func isWordByte(_ byte: UInt8) -> Bool {
        (byte >= 48 && byte <= 57) || (byte >= 65 && byte <= 90) || (byte >= 97 && byte <= 122)
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
            if let first = Self.foldedFirst(line[start]), firsts.contains(first) {
                let word = Self.folded(line[start..<end])
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

    /// The first character of `character` folded (ASCII without building a string).
    private static func foldedFirst(_ character: Character) -> Character? {
        if let ascii = character.asciiValue { return Character(Unicode.Scalar(Self.lowercased(ascii))) }
        return fold(character).first
    }

    /// The characters of `word` folded (an ASCII word without building a string).
    private static func folded(_ word: ArraySlice<Character>) -> [Character] {
        var ascii: [Character] = []
        ascii.reserveCapacity(word.count)
        for character in word {
            guard let byte = character.asciiValue else { return Array(fold(String(word))) }
            ascii.append(Character(Unicode.Scalar(Self.lowercased(byte))))
        }
        return ascii
    }

    /// An ASCII letter lowercased; any other byte as it is.
    private static func lowercased(_ ascii: UInt8) -> UInt8 {
        ascii >= 65 && ascii <= 90 ? ascii + 32 : ascii
    }

    /// `character` lowercased without diacritics (ASCII without Foundation).
    static func fold(_ character: Character) -> String {
        if let ascii = character.asciiValue {
            return String(Character(Unicode.Scalar(lowercased(ascii))))
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
