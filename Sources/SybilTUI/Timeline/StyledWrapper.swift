/// Wraps styled text to a width in display columns: breaks at spaces and between wide (CJK)
/// characters, never inside a grapheme, splits a word longer than the line by graphemes, and
/// keeps hard breaks (a span whose text holds `"\n"`). Spaces at a break are dropped; a word
/// made of differently styled parts (`**bold**ed`) is not broken between the parts.
enum StyledWrapper {
    private enum Kind {
        case word, space, wide, lineBreak
    }

    private struct Piece {
        var text: String
        var width: Int
        var style: CellStyle
        var kind: Kind
    }

    /// A line being filled, merging neighbouring text of one style into one span.
    struct LineBuilder {
        var spans: [StyledSpan] = []
        var width = 0

        mutating func append(_ text: String, width: Int, style: CellStyle) {
            if let last = spans.indices.last, spans[last].style == style {
                spans[last].text += text
            } else {
                spans.append(StyledSpan(text, style: style))
            }
            self.width += width
        }

        var line: StyledLine { StyledLine(spans) }
    }

    /// The lines of `spans`, each at most `width` columns (at least 1); always one line or more.
    static func wrap(_ spans: [StyledSpan], width: Int) -> [StyledLine] {
        let width = max(width, 1)
        var lines: [StyledLine] = []
        var current = LineBuilder()
        var pendingSpaces: [Piece] = []
        func flush() {
            lines.append(current.line)
            current = LineBuilder()
            pendingSpaces = []
        }
        for group in groups(pieces(of: spans)) {
            guard let first = group.first else { continue }
            if first.kind == .lineBreak {
                flush()
                continue
            }
            if first.kind == .space {
                if current.width > 0 { pendingSpaces.append(first) }
                continue
            }
            let groupWidth = group.reduce(0) { $0 + $1.width }
            let spaceWidth = pendingSpaces.reduce(0) { $0 + $1.width }
            if current.width > 0, current.width + spaceWidth + groupWidth > width {
                flush()
            }
            for space in pendingSpaces { current.append(space.text, width: space.width, style: space.style) }
            pendingSpaces = []
            if groupWidth <= width - current.width {
                for piece in group { current.append(piece.text, width: piece.width, style: piece.style) }
                continue
            }
            for piece in group {
                for character in piece.text {
                    let characterWidth = DisplayWidth.of(character)
                    if current.width > 0, current.width + characterWidth > width { flush() }
                    current.append(String(character), width: characterWidth, style: piece.style)
                }
            }
        }
        flush()
        return lines
    }

    /// Plain text in one style: each source line wrapped on its own.
    static func wrap(plain text: String, style: CellStyle, width: Int) -> [StyledLine] {
        wrap(lineSpans(text, style: style), width: width)
    }

    /// `text` as spans with its newlines as hard breaks.
    static func lineSpans(_ text: String, style: CellStyle) -> [StyledSpan] {
        var spans: [StyledSpan] = []
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            if index > 0 { spans.append(StyledSpan("\n", style: style)) }
            if !line.isEmpty { spans.append(StyledSpan(String(line), style: style)) }
        }
        return spans
    }

    /// Pieces glued into what may not be broken: neighbouring word pieces form one group;
    /// spaces, breaks and wide characters stand alone.
    private static func groups(_ pieces: [Piece]) -> [[Piece]] {
        var groups: [[Piece]] = []
        var gluable = false
        for piece in pieces {
            let isWord = piece.kind == .word
            if isWord, gluable, !groups.isEmpty {
                groups[groups.count - 1].append(piece)
            } else {
                groups.append([piece])
            }
            gluable = isWord
        }
        return groups
    }

    /// Splits spans into words, single wide characters, spaces and hard breaks.
    private static func pieces(of spans: [StyledSpan]) -> [Piece] {
        var pieces: [Piece] = []
        for span in spans {
            let style = span.style
            if span.text.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) {
                // Printable ASCII: one column a byte, no grapheme breaking needed.
                for (index, word) in span.text.utf8.split(separator: 0x20, omittingEmptySubsequences: false)
                    .enumerated()
                {
                    if index > 0 { pieces.append(Piece(text: " ", width: 1, style: style, kind: .space)) }
                    if !word.isEmpty {
                        pieces.append(
                            Piece(text: String(Substring(word)), width: word.count, style: style, kind: .word))
                    }
                }
                continue
            }
            var word = ""
            var wordWidth = 0
            func endWord() {
                if !word.isEmpty { pieces.append(Piece(text: word, width: wordWidth, style: style, kind: .word)) }
                word = ""
                wordWidth = 0
            }
            for character in span.text {
                switch character {
                case "\n", "\r\n":
                    endWord()
                    pieces.append(Piece(text: "", width: 0, style: style, kind: .lineBreak))
                case " ", "\t":
                    endWord()
                    pieces.append(Piece(text: " ", width: 1, style: style, kind: .space))
                default:
                    let characterWidth = DisplayWidth.of(character)
                    if characterWidth == 2 {
                        endWord()
                        pieces.append(Piece(text: String(character), width: 2, style: style, kind: .wide))
                    } else {
                        word.append(character)
                        wordWidth += characterWidth
                    }
                }
            }
            endWord()
        }
        return pieces
    }

    /// `line` cut to `width` columns, ending in "…" when it was cut.
    static func clip(_ line: StyledLine, to width: Int) -> StyledLine {
        guard line.width > width else { return line }
        guard width > 0 else { return .empty }
        var result = LineBuilder()
        var lastStyle = CellStyle.plain
        for span in line.spans {
            let room = width - 1 - result.width
            if room <= 0 { break }
            let (head, used) = DisplayWidth.prefix(of: span.text, fitting: room)
            lastStyle = span.style
            if used > 0 { result.append(String(head), width: used, style: span.style) }
            if head.endIndex != span.text.endIndex { break }
        }
        result.append("…", width: 1, style: lastStyle)
        return result.line
    }
}
