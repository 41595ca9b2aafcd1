/// The text being written in the composer and its cursor: a pure value with the editing
/// operations the app binds keys to (which key does what is the app's decision).
///
/// The cursor is an offset in grapheme clusters (`Character`s) from the start of ``text``,
/// `0...text.count`, so the buffer is `Hashable` and `Sendable` and a cursor never points
/// inside a grapheme. Lines are separated by newline characters (LF; any `Character` with
/// `isNewline`). Words are runs of letters, digits and `_`, or runs of other non-space
/// characters; whitespace (including newlines) separates them.
public struct ComposerBuffer: Sendable, Hashable {
    /// The text, its length in graphemes and the cursor: kept together so an edit at the
    /// cursor costs what it changes (typing at the end of a long draft never walks the whole
    /// text; a terminal without bracketed paste types a pasted megabyte one key at a time).
    private var storage: String
    private var length: Int
    private var offset: Int

    /// The text. Setting it keeps the cursor in range.
    public var text: String {
        get { storage }
        set {
            storage = newValue
            length = newValue.count
            offset = min(max(offset, 0), length)
        }
    }

    /// The cursor, in graphemes from the start of the text. Setting it clamps it to
    /// `0...text.count`.
    public var cursor: Int {
        get { offset }
        set { offset = min(max(newValue, 0), length) }
    }

    /// How many graphemes the text holds (`text.count`, without counting them again).
    public var count: Int { length }

    /// Creates a buffer holding `text` with the cursor at its end.
    public init(text: String = "") {
        storage = text
        length = text.count
        offset = length
    }

    /// Whether there is no text.
    public var isEmpty: Bool { storage.isEmpty }

    // MARK: - Editing

    /// Inserts `text` at the cursor as it is (a paste keeps its newlines and tabs) and moves
    /// the cursor after it.
    public mutating func insert(_ text: String) {
        replace(cursor..<cursor, with: text)
    }

    /// Inserts a line break at the cursor.
    public mutating func insertNewline() {
        insert("\n")
    }

    /// Deletes the grapheme before the cursor (Backspace).
    public mutating func deleteBackward() {
        guard cursor > 0 else { return }
        replace((cursor - 1)..<cursor, with: "")
    }

    /// Deletes the grapheme after the cursor (Delete).
    public mutating func deleteForward() {
        guard cursor < length else { return }
        replace(cursor..<(cursor + 1), with: "")
    }

    /// Deletes back to the start of the word before the cursor, with the spaces between.
    public mutating func deleteWordBackward() {
        replace(wordStart(before: cursor)..<cursor, with: "")
    }

    /// Deletes from the start of the line to the cursor; at the start of a line, joins it to
    /// the line before.
    public mutating func deleteToLineStart() {
        let start = lineStart(at: cursor)
        replace((start == cursor ? max(0, cursor - 1) : start)..<cursor, with: "")
    }

    /// Deletes from the cursor to the end of the line; at the end of a line, joins the next
    /// line to it.
    public mutating func deleteToLineEnd() {
        let end = lineEnd(at: cursor)
        replace(cursor..<(end == cursor ? min(length, cursor + 1) : end), with: "")
    }

    /// Removes all text.
    public mutating func clear() {
        text = ""
        cursor = 0
    }

    // MARK: - Moving

    /// Moves the cursor one grapheme left (stays at the start).
    public mutating func moveLeft() {
        cursor -= 1
    }

    /// Moves the cursor one grapheme right (stays at the end).
    public mutating func moveRight() {
        cursor += 1
    }

    /// Moves the cursor to the start of the word before it.
    public mutating func moveWordLeft() {
        cursor = wordStart(before: cursor)
    }

    /// Moves the cursor to the end of the word after it.
    public mutating func moveWordRight() {
        let characters = Array(text)
        var index = cursor
        while index < characters.count, characters[index].isWhitespace { index += 1 }
        guard index < characters.count else {
            cursor = index
            return
        }
        let kind = Self.wordKind(characters[index])
        while index < characters.count, Self.wordKind(characters[index]) == kind { index += 1 }
        cursor = index
    }

    /// Moves the cursor to the start of its line (logical line, not visual).
    public mutating func moveLineStart() {
        cursor = lineStart(at: cursor)
    }

    /// Moves the cursor to the end of its line (logical line, not visual).
    public mutating func moveLineEnd() {
        cursor = lineEnd(at: cursor)
    }

    /// Moves the cursor to the visual line above when laid out at `width`, to the column
    /// nearest its own without passing it. Returns `false`, leaving the cursor, when it is on
    /// the first visual line (the app may then use ↑ for history or scrolling).
    @discardableResult
    public mutating func moveUp(width: Int) -> Bool {
        moveVertically(by: -1, width: width)
    }

    /// Moves the cursor to the visual line below when laid out at `width`. Returns `false`,
    /// leaving the cursor, when it is on the last visual line.
    @discardableResult
    public mutating func moveDown(width: Int) -> Bool {
        moveVertically(by: 1, width: width)
    }

    // MARK: - Layout

    /// The text wrapped at `width` display columns (at least 1): after the last space that
    /// fits where there is one, otherwise between graphemes; the space where a line breaks is
    /// not drawn (the cursor can still stand on it, at the end of the line). Wide graphemes take two columns and are never split; a tab takes one and is drawn as a space.
    public func layout(width: Int) -> ComposerLayout {
        let characters = Array(text)
        let rows = Self.rows(of: characters, width: width)
        let (line, column) = Self.position(of: cursor, in: rows, characters: characters)
        let lines = rows.map { Self.drawn(characters[$0.start..<$0.shownEnd]) }
        return ComposerLayout(lines: lines, cursorLine: line, cursorColumn: column)
    }

    /// The visual lines near the cursor, as ``layout(width:)`` lays them out: the cursor's line
    /// with up to `context` lines above and below it (every line when the text has no more),
    /// ``ComposerLayout/cursorLine`` counted within them. Lays out only the logical lines those
    /// come from, so drawing a few lines of a megabyte draft does not wrap the whole of it.
    public func layout(width: Int, around context: Int) -> ComposerLayout {
        let width = max(1, width)
        let context = max(0, context)
        var lineStart = index(at: offset)
        var cursorInLine = 0
        while lineStart > storage.startIndex {
            let before = storage.index(before: lineStart)
            if storage[before].isNewline { break }
            lineStart = before
            cursorInLine += 1
        }
        let lineEnd = endOfLine(from: lineStart)
        let line = Array(storage[lineStart..<lineEnd])
        let rows = Self.rows(of: line, width: width)
        let (cursorRow, column) = Self.position(of: cursorInLine, in: rows, characters: line)
        var lines = rows.map { Self.drawn(line[$0.start..<$0.shownEnd]) }
        var cursorLine = cursorRow
        var start = lineStart
        while cursorLine < context, start > storage.startIndex {
            let end = storage.index(before: start)
            start = end
            while start > storage.startIndex {
                let before = storage.index(before: start)
                if storage[before].isNewline { break }
                start = before
            }
            let above = Array(storage[start..<end])
            let wrapped = Self.rows(of: above, width: width).map { Self.drawn(above[$0.start..<$0.shownEnd]) }
            lines.insert(contentsOf: wrapped, at: 0)
            cursorLine += wrapped.count
        }
        var end = lineEnd
        while lines.count - 1 - cursorLine < context, end < storage.endIndex {
            let next = storage.index(after: end)
            end = endOfLine(from: next)
            let below = Array(storage[next..<end])
            lines += Self.rows(of: below, width: width).map { Self.drawn(below[$0.start..<$0.shownEnd]) }
        }
        let first = max(0, cursorLine - context)
        let kept = lines[first..<min(lines.count, cursorLine + context + 1)]
        return ComposerLayout(lines: Array(kept), cursorLine: cursorLine - first, cursorColumn: column)
    }

    /// The index of the newline ending the logical line that starts at `start` (or the end).
    private func endOfLine(from start: String.Index) -> String.Index {
        var end = start
        while end < storage.endIndex, !storage[end].isNewline { end = storage.index(after: end) }
        return end
    }

    /// The columns a grapheme takes in the composer: a tab (pasted text keeps its tabs) takes
    /// one and is drawn as a space, so it is seen and the cursor steps over it; everything else
    /// takes its ``DisplayWidth``.
    private static func columns(of character: Character) -> Int {
        character == "\t" ? 1 : DisplayWidth.of(character)
    }

    /// A visual line as it is drawn: tabs as spaces.
    private static func drawn(_ graphemes: ArraySlice<Character>) -> String {
        String(graphemes.map { $0 == "\t" ? " " : $0 })
    }

    /// One visual line: the graphemes `start..<shownEnd` are drawn, and cursor offsets
    /// `start...lastCursor` are on it.
    private struct Row {
        var start: Int
        var shownEnd: Int
        var lastCursor: Int
    }

    private static func rows(of characters: [Character], width: Int) -> [Row] {
        let width = max(1, width)
        var rows: [Row] = []
        var lineStart = 0
        while true {
            var lineEnd = lineStart
            while lineEnd < characters.count, !characters[lineEnd].isNewline { lineEnd += 1 }
            wrap(characters, from: lineStart, to: lineEnd, width: width, into: &rows)
            if lineEnd == characters.count { return rows }
            lineStart = lineEnd + 1
        }
    }

    /// Wraps the logical line `start..<end` into rows.
    private static func wrap(
        _ characters: [Character], from start: Int, to end: Int, width: Int, into rows: inout [Row]
    ) {
        var start = start
        while true {
            var used = 0
            var fits = start
            while fits < end, used + columns(of: characters[fits]) <= width {
                used += columns(of: characters[fits])
                fits += 1
            }
            if fits == end {
                rows.append(Row(start: start, shownEnd: end, lastCursor: end))
                return
            }
            let next: Int
            var shownEnd: Int
            if fits == start {
                // A grapheme wider than the whole line stands alone on it.
                next = start + 1
                shownEnd = next
                if next == end {
                    rows.append(Row(start: start, shownEnd: end, lastCursor: end))
                    return
                }
            } else if characters[fits].isWhitespace {
                next = fits + 1
                shownEnd = fits
            } else if let space = (start..<fits).last(where: { characters[$0].isWhitespace }), space > start {
                next = space + 1
                shownEnd = space
            } else {
                next = fits
                shownEnd = fits
            }
            rows.append(Row(start: start, shownEnd: shownEnd, lastCursor: next - 1))
            start = next
        }
    }

    private static func position(of cursor: Int, in rows: [Row], characters: [Character]) -> (line: Int, column: Int) {
        let line = rows.firstIndex { cursor >= $0.start && cursor <= $0.lastCursor } ?? rows.count - 1
        let row = rows[line]
        let column = characters[row.start..<min(cursor, characters.count)].reduce(0) { $0 + columns(of: $1) }
        return (line, column)
    }

    private mutating func moveVertically(by step: Int, width: Int) -> Bool {
        let characters = Array(text)
        let rows = Self.rows(of: characters, width: width)
        let (line, column) = Self.position(of: cursor, in: rows, characters: characters)
        let target = line + step
        guard rows.indices.contains(target) else { return false }
        let row = rows[target]
        var offset = row.start
        var used = 0
        while offset < row.lastCursor {
            let next = used + Self.columns(of: characters[offset])
            if next > column { break }
            used = next
            offset += 1
        }
        cursor = offset
        return true
    }

    // MARK: - Helpers

    /// Replaces the graphemes in `range` with `replacement` and puts the cursor after it (as
    /// many graphemes as the text before the range and the replacement make on their own).
    ///
    /// Costs the replacement and the text after the range, never the text before it: grapheme
    /// boundaries before the grapheme preceding the range cannot change, so only what follows
    /// that grapheme is counted again (typing at the end of a long draft costs the key).
    private mutating func replace(_ range: Range<Int>, with replacement: String) {
        let lower = index(at: range.lowerBound)
        let upper = storage.index(lower, offsetBy: range.count)
        // The grapheme before the range may join the replacement (a combining mark typed after
        // its letter), and the replacement's end may join what follows.
        let anchor = range.lowerBound > 0 ? storage.index(before: lower) : lower
        let kept = range.lowerBound > 0 ? range.lowerBound - 1 : 0
        let headCount = kept + (storage[anchor..<lower] + replacement).count
        let anchorOffset = storage.utf8.distance(from: storage.startIndex, to: anchor)
        storage.replaceSubrange(lower..<upper, with: replacement)
        length = kept + storage[storage.utf8.index(storage.startIndex, offsetBy: anchorOffset)...].count
        offset = min(headCount, length)
    }

    /// The string index of the grapheme offset `target` (`0...length`), walked from the nearer end.
    private func index(at target: Int) -> String.Index {
        target <= length - target
            ? storage.index(storage.startIndex, offsetBy: target)
            : storage.index(storage.endIndex, offsetBy: target - length)
    }

    private enum WordKind {
        case space, word, other
    }

    private static func wordKind(_ character: Character) -> WordKind {
        if character.isWhitespace { return .space }
        if character.isLetter || character.isNumber || character == "_" { return .word }
        return .other
    }

    private func wordStart(before offset: Int) -> Int {
        let characters = Array(text)
        var index = offset
        while index > 0, characters[index - 1].isWhitespace { index -= 1 }
        guard index > 0 else { return 0 }
        let kind = Self.wordKind(characters[index - 1])
        while index > 0, Self.wordKind(characters[index - 1]) == kind { index -= 1 }
        return index
    }

    private func lineStart(at offset: Int) -> Int {
        let characters = Array(text)
        var index = offset
        while index > 0, !characters[index - 1].isNewline { index -= 1 }
        return index
    }

    private func lineEnd(at offset: Int) -> Int {
        let characters = Array(text)
        var index = offset
        while index < characters.count, !characters[index].isNewline { index += 1 }
        return index
    }
}
