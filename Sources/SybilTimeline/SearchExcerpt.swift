import Foundation
import SybilCore

/// The one-line excerpt a history search shows for a hit (SPEC §5.4): the text on one line
/// (line breaks and tabs become spaces), the words matching the query marked so a front end
/// draws them bold, cut to a width in display columns (``DisplayWidth``) in the middle with
/// `…`, keeping the first match in view.
///
/// Matching: each term matches, ignoring case and diacritics, at the start of a word, and the
/// whole word is marked (`plan` marks `Planning`). A term of Han, Hiragana or Katakana matches
/// anywhere (those scripts have no spaces) and marks what it matched, as the index does.
///
/// Cutting, when the line is wider than `width`: if the first match ends in the first half, the
/// line keeps its start and its end around one `…` (middle truncation); otherwise it keeps its
/// start (a third of the width), `…`, then the text from a little before the first match, with
/// a second `…` when the end does not fit, or, when that window would cut the match, the
/// longest start that holds it. The first match's whole word is kept whenever it fits with an
/// `…` on each side (a wider one keeps its start). The result is never wider than `width`.
public struct SearchExcerpt: Sendable, Hashable {
    /// A piece of the line, plain or marked.
    public struct Run: Sendable, Hashable {
        /// The text.
        public var text: String
        /// Whether it is (part of) a matching word.
        public var isMatch: Bool

        /// Creates a run.
        public init(_ text: String, isMatch: Bool) {
            self.text = text
            self.isMatch = isMatch
        }
    }

    /// The line, in order.
    public let runs: [Run]

    /// The line's text without marks.
    public var text: String { runs.map(\.text).joined() }

    /// The columns the line takes (never more than the width asked for).
    public var columns: Int { DisplayWidth.columns(of: text) }

    /// The excerpt of `text` for `terms`, at most `width` columns wide (nothing when `width` < 1).
    ///
    /// Text that is all ASCII (most chat text) is read as bytes, one column each, without
    /// looking up Unicode properties; any other text character by character. Both read the
    /// same rules, so they give the same excerpt.
    public init(text: String, terms: [String], width: Int) {
        let matcher = SearchMatcher(terms: terms)
        if text.utf8.allSatisfy({ $0 < 0x80 }) {
            let line = Self.oneLine(ascii: text.utf8)
            runs = Self.runs(
                of: line, marks: matcher.marks(inASCII: line), widths: [Int](repeating: 1, count: line.count),
                width: width, space: 0x20, text: { String(decoding: $0, as: UTF8.self) })
        } else {
            let line = Self.oneLine(text)
            runs = Self.runs(
                of: line, marks: matcher.marks(in: line), widths: line.map(DisplayWidth.columns(of:)), width: width,
                space: " ", text: { String($0) })
        }
    }

    /// The runs of `line` (each element taking `widths` columns, `marks` flagging the matches)
    /// cut to `width` columns, with `text` making a run's string.
    private static func runs<Element: Equatable>(
        of line: [Element], marks: [Bool], widths: [Int], width: Int, space: Element,
        text: (ArraySlice<Element>) -> String
    ) -> [Run] {
        let spaces = Set(line.indices.filter { line[$0] == space })
        let firstMatch = marks.firstIndex(of: true).map { start in
            start..<(marks[start...].firstIndex(of: false) ?? marks.count)
        }
        let pieces = Self.layout(widths: widths, firstMatch: firstMatch, width: width, spaces: spaces)
        var runs: [Run] = []
        for (position, piece) in pieces.enumerated() {
            switch piece {
            case .ellipsis: Self.append("…", isMatch: false, to: &runs)
            case .range(var range):
                // No space right beside a cut.
                if position > 0 {
                    while let first = range.first, line[first] == space { range = range.dropFirst() }
                }
                if position < pieces.count - 1 {
                    while let last = range.last, line[last] == space { range = range.dropLast() }
                }
                var start = range.lowerBound
                while start < range.upperBound {
                    var end = start + 1
                    while end < range.upperBound, marks[end] == marks[start] { end += 1 }
                    Self.append(text(line[start..<end]), isMatch: marks[start], to: &runs)
                    start = end
                }
            }
        }
        return runs
    }

    /// ``oneLine(_:)`` for ASCII text, as bytes: every run of blanks (the space and the ASCII
    /// controls, which include tab and line breaks) becomes one space, trimmed.
    static func oneLine(ascii text: String.UTF8View) -> [UInt8] {
        var line: [UInt8] = []
        line.reserveCapacity(text.count)
        var pendingSpace = false
        for byte in text {
            if byte <= 0x20 || byte == 0x7F {
                pendingSpace = !line.isEmpty
                continue
            }
            if pendingSpace { line.append(0x20) }
            pendingSpace = false
            line.append(byte)
        }
        return line
    }

    /// The text with every run of whitespace (line breaks included) as one space, trimmed; a
    /// bidi override, embedding or isolate as U+FFFD (see ``TerminalText``), so that it is
    /// measured as it is shown and never written for a terminal to obey.
    static func oneLine(_ text: String) -> [Character] {
        var line: [Character] = []
        var pendingSpace = false
        for character in text {
            if Self.isBlank(character) {
                pendingSpace = !line.isEmpty
                continue
            }
            if pendingSpace { line.append(" ") }
            pendingSpace = false
            // A format character is a grapheme of its own: one scalar.
            let shown = character.unicodeScalars.first.map(TerminalText.isUnsafe) == true ? "\u{FFFD}" : character
            line.append(shown)
        }
        return line
    }

    /// Whether `character` is whitespace or a control character (ASCII is decided without
    /// looking up Unicode properties: the space and every ASCII control, tab and line breaks
    /// among them).
    private static func isBlank(_ character: Character) -> Bool {
        if let ascii = character.asciiValue { return ascii <= 0x20 || ascii == 0x7F }
        return character.isWhitespace
            || character.unicodeScalars.allSatisfy { $0.properties.generalCategory == .control }
    }

    private static func append(_ text: String, isMatch: Bool, to runs: inout [Run]) {
        if let last = runs.last, last.isMatch == isMatch {
            runs[runs.count - 1].text += text
        } else {
            runs.append(Run(text, isMatch: isMatch))
        }
    }
}
