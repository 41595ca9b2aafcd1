import SybilCore

/// Wraps inline runs to a width in display columns: breaks at spaces and between wide (CJK)
/// characters, splits a word longer than the line by grapheme clusters, keeps hard breaks,
/// and shows a link's destination after its text (unless the text is the destination).
struct InlineWrapper {
    private struct Piece {
        var text: String
        var width: Int
        var parameters: [String]
        var isSpace: Bool
        var isBreak: Bool
        /// A single East Asian wide character: a break may come before and after it.
        var isWide = false
    }

    let width: Int
    let style: TerminalStyle

    /// The lines of `runs`, each at most `width` columns (trailing spaces dropped); extra
    /// SGR parameters (a heading's bold) apply to every piece.
    func wrap(_ runs: [MarkdownRun], extra: [String] = []) -> [TerminalLine] {
        var lines: [TerminalLine] = []
        var current = TerminalLine.empty
        var pendingSpace: [Piece] = []
        // Pieces with the same style share one SGR span.
        var span = ""
        var spanParameters: [String] = []
        func closeSpan() {
            current.text += style.apply(spanParameters, span)
            span = ""
        }
        func flush() {
            closeSpan()
            lines.append(current)
            current = .empty
            pendingSpace = []
        }
        func put(_ piece: Piece) {
            if piece.parameters != spanParameters {
                closeSpan()
                spanParameters = piece.parameters
            }
            span += piece.text
            current.width += piece.width
        }
        for group in groups(pieces(of: withLinkDestinations(runs), extra: extra)) {
            guard let first = group.first else { continue }
            if first.isBreak {
                flush()
                continue
            }
            if first.isSpace {
                if current.width > 0 { pendingSpace.append(first) }
                continue
            }
            let groupWidth = group.reduce(0) { $0 + $1.width }
            let spaceWidth = pendingSpace.reduce(0) { $0 + $1.width }
            if current.width > 0, current.width + spaceWidth + groupWidth > width {
                flush()
            }
            for space in pendingSpace { put(space) }
            pendingSpace = []
            if groupWidth <= width - current.width {
                for piece in group { put(piece) }
                continue
            }
            for piece in group {
                for character in piece.text {
                    let characterWidth = DisplayWidth.columns(of: character)
                    if current.width > 0, current.width + characterWidth > width { flush() }
                    var single = piece
                    single.text = String(character)
                    single.width = characterWidth
                    put(single)
                }
            }
        }
        flush()
        return lines
    }

    /// Pieces glued into what may not be broken: a word whose parts carry different styles
    /// (`**bold**ed`) is one group; spaces, breaks and wide characters stand alone.
    private func groups(_ pieces: [Piece]) -> [[Piece]] {
        var groups: [[Piece]] = []
        var gluable = false
        for piece in pieces {
            let isWord = !piece.isSpace && !piece.isBreak && !piece.isWide
            if isWord, gluable, !groups.isEmpty {
                groups[groups.count - 1].append(piece)
            } else {
                groups.append([piece])
            }
            gluable = isWord
        }
        return groups
    }

    /// The runs with ` (destination)` after each link whose text is not its destination.
    private func withLinkDestinations(_ runs: [MarkdownRun]) -> [MarkdownRun] {
        var result: [MarkdownRun] = []
        var index = 0
        while index < runs.count {
            let run = runs[index]
            result.append(run)
            index += 1
            guard let destination = run.link else { continue }
            var text = run.text
            while index < runs.count, runs[index].link == destination {
                text += runs[index].text
                result.append(runs[index])
                index += 1
            }
            let shown = destination.hasPrefix("mailto:") ? String(destination.dropFirst(7)) : destination
            if !destination.isEmpty, text != shown, text != destination {
                result.append(MarkdownRun(" (\(destination))", style: [], link: nil))
            }
        }
        return result
    }

    /// Splits runs into words, single wide characters, spaces and hard breaks.
    private func pieces(of runs: [MarkdownRun], extra: [String]) -> [Piece] {
        var pieces: [Piece] = []
        for run in runs {
            if run.isLineBreak {
                pieces.append(Piece(text: "", width: 0, parameters: [], isSpace: false, isBreak: true))
                continue
            }
            let parameters = extra + TerminalStyle.parameters(run.style)
            var word = ""
            var wordWidth = 0
            func endWord() {
                if !word.isEmpty {
                    pieces.append(
                        Piece(text: word, width: wordWidth, parameters: parameters, isSpace: false, isBreak: false))
                }
                word = ""
                wordWidth = 0
            }
            if run.text.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) {
                // Printable ASCII: one column a byte; split at spaces without grapheme breaking.
                for (index, word) in run.text.utf8.split(separator: 0x20, omittingEmptySubsequences: false).enumerated()
                {
                    if index > 0 {
                        pieces.append(Piece(text: " ", width: 1, parameters: parameters, isSpace: true, isBreak: false))
                    }
                    if !word.isEmpty {
                        pieces.append(
                            Piece(
                                text: String(Substring(word)), width: word.count, parameters: parameters,
                                isSpace: false, isBreak: false))
                    }
                }
                continue
            }
            for character in run.text {
                if character == " " || character == "\t" || character == "\n" {
                    endWord()
                    pieces.append(Piece(text: " ", width: 1, parameters: parameters, isSpace: true, isBreak: false))
                    continue
                }
                let characterWidth = DisplayWidth.columns(of: character)
                if characterWidth == 2 {
                    endWord()
                    pieces.append(
                        Piece(
                            text: String(character), width: 2, parameters: parameters, isSpace: false, isBreak: false,
                            isWide: true))
                    continue
                }
                word.append(character)
                wordWidth += characterWidth
            }
            endWord()
        }
        return pieces
    }
}
