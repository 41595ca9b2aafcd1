import SybilCore

/// Renders Markdown for a terminal: wrapped to a width in display columns, styled with ANSI
/// SGR (bold headings and strong text, italic emphasis, underlined links with the URL after
/// the text, inverse code spans, dim code blocks, quote bars and rules), or the same layout
/// without escape sequences when `color` is off (`NO_COLOR`, not a terminal). Pure: it
/// returns a string and touches nothing.
///
/// Layout: blocks are separated by one blank line; code blocks are indented 4 columns and
/// never re-wrapped (a long code line is left to the terminal, so copied code stays code);
/// list items hang under their marker (`•`, or numbers right-aligned); block quotes get a
/// `│ ` bar; tables are drawn with box lines and columns sized to their content, shrunk and
/// wrapped when the table is wider than the width.
public struct TerminalMarkdownRenderer: Sendable {
    /// The narrowest width honoured; narrower requests render at this width.
    public static let minimumWidth = 20

    /// The columns available.
    public let width: Int
    /// Whether to emit ANSI SGR sequences.
    public let color: Bool

    /// A renderer for `width` columns (at least ``minimumWidth``), with or without colour.
    public init(width: Int = 80, color: Bool = true) {
        self.width = max(width, Self.minimumWidth)
        self.color = color
    }

    /// The rendered document: every line ends with a newline; empty for an empty document.
    public func render(_ document: MarkdownDocument) -> String {
        render(blocks: document.blocks)
    }

    /// Parses and renders `markdown`; text over the size limit is shown as it is, line by
    /// line, so nothing a peer sends fails to display.
    public func render(markdown: String, limits: MarkdownLimits = .standard) -> String {
        do {
            return render(try MarkdownDocument.parse(markdown, limits: limits))
        } catch {
            return render(blocks: [.html(TerminalText.safe(markdown))])
        }
    }

    /// The rendered blocks, separated by blank lines, each line ending with a newline.
    public func render(blocks: [MarkdownBlock]) -> String {
        var output = ""
        for line in lines(of: blocks, width: width, loose: true, depth: 0) {
            output += line.text
            output += "\n"
        }
        return output
    }

    var style: TerminalStyle { TerminalStyle(color: color) }

    /// The lines of `blocks` at `width`, a blank line between blocks when `loose`.
    func lines(of blocks: [MarkdownBlock], width: Int, loose: Bool, depth: Int) -> [TerminalLine] {
        var result: [TerminalLine] = []
        for block in blocks {
            let blockLines = lines(of: block, width: max(width, 1), depth: depth)
            if blockLines.isEmpty { continue }
            if loose, !result.isEmpty { result.append(.empty) }
            result.append(contentsOf: blockLines)
        }
        return result
    }

    private func lines(of block: MarkdownBlock, width: Int, depth: Int) -> [TerminalLine] {
        let wrapper = InlineWrapper(width: width, style: style)
        switch block {
        case .paragraph(let runs):
            return wrapper.wrap(runs)
        case .heading(let level, let runs):
            let marker = String(repeating: "#", count: level) + " "
            let body = InlineWrapper(width: max(width - marker.count, 1), style: style).wrap(runs, extra: ["1"])
            return body.enumerated().map { index, line in
                let prefix = index == 0 ? style.dim(marker) : String(repeating: " ", count: marker.count)
                return TerminalLine(text: prefix + line.text, width: marker.count + line.width)
            }
        case .codeBlock(_, let code):
            return code.split(separator: "\n", omittingEmptySubsequences: false).map { line in
                let text = "    " + line.replacingTabs()
                return TerminalLine(
                    text: line.isEmpty ? "" : style.dim(text), width: line.isEmpty ? 0 : DisplayWidth.columns(of: text))
            }
        case .html(let html):
            return html.split(separator: "\n", omittingEmptySubsequences: false).map { line in
                let text = line.replacingTabs()
                return TerminalLine(text: style.dim(text), width: DisplayWidth.columns(of: text))
            }
        case .thematicBreak:
            return [TerminalLine(text: style.dim(String(repeating: "─", count: width)), width: width)]
        case .blockQuote(let blocks):
            let bar = style.dim("│ ")
            return lines(of: blocks, width: width - 2, loose: true, depth: depth + 1).map { line in
                line.width == 0
                    ? TerminalLine(text: style.dim("│"), width: 1)
                    : TerminalLine(text: bar + line.text, width: line.width + 2)
            }
        case .list(let list):
            return lines(of: list, width: width, depth: depth)
        case .table(let table):
            return TableLayout(table: table, width: width, style: style).lines()
        }
    }

    private func lines(of list: MarkdownList, width: Int, depth: Int) -> [TerminalLine] {
        let markers: [String]
        switch list.kind {
        case .bullet:
            markers = Array(repeating: depth % 2 == 0 ? "•" : "◦", count: list.items.count)
        case .ordered(let start):
            markers = list.items.indices.map { "\(start + $0)." }
        }
        let markerWidth = (markers.map(\.count).max() ?? 1) + 1
        var result: [TerminalLine] = []
        for (item, marker) in zip(list.items, markers) {
            if !list.isTight, !result.isEmpty { result.append(.empty) }
            let body = lines(of: item, width: width - markerWidth, loose: !list.isTight, depth: depth + 1)
            let padded = String(repeating: " ", count: markerWidth - marker.count - 1) + marker + " "
            if body.isEmpty {
                result.append(TerminalLine(text: padded, width: markerWidth))
                continue
            }
            for (index, line) in body.enumerated() {
                let prefix = index == 0 ? padded : String(repeating: " ", count: markerWidth)
                result.append(
                    TerminalLine(
                        text: line.width == 0 && index > 0 ? "" : prefix + line.text,
                        width: line.width == 0 && index > 0 ? 0 : markerWidth + line.width))
            }
        }
        return result
    }
}

extension Substring {
    /// Tabs as 4 spaces, so widths are known.
    fileprivate func replacingTabs() -> String {
        guard contains("\t") else { return String(self) }
        return split(separator: "\t", omittingEmptySubsequences: false).joined(separator: "    ")
    }
}
