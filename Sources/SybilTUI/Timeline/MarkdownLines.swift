import SybilCore
import SybilMarkdown

/// Markdown laid out as styled lines for a width, drawn from SybilMarkdown's styled-run model
/// (never from ANSI text): paragraphs wrapped by words at display width (CJK between
/// characters, over-long words hard-wrapped by grapheme), headings in the accent, inline
/// emphasis, strong, strikethrough, code spans and links, lists with hanging indents, quotes
/// with a bar, code blocks on the code background filling the width and cut with "…" rather
/// than re-wrapped, rules, and box-drawn tables with SybilMarkdown's column widths. No line
/// is wider than the width.
public enum MarkdownLines {
    /// `markdown` parsed with SybilMarkdown's parser and standard limits, laid out for
    /// `width`; text over the size limit is shown verbatim, wrapped as plain text.
    public static func lines(markdown: String, width: Int, theme: Theme) -> [StyledLine] {
        do {
            let document = try MarkdownDocument.parse(markdown)
            return lines(for: document.blocks, width: width, theme: theme)
        } catch {
            let text = TerminalText.safe(markdown)
            return StyledWrapper.wrap(plain: text, style: theme.text, width: max(width, 1))
        }
    }

    /// `blocks` laid out for `width` columns (at least 1), a blank line between blocks.
    public static func lines(for blocks: [MarkdownBlock], width: Int, theme: Theme) -> [StyledLine] {
        let width = max(width, 1)
        return MarkdownLineRenderer(theme: theme).blocks(blocks, width: width, tight: false).map {
            StyledWrapper.clip($0, to: width)
        }
    }
}

/// Lays out blocks recursively (SybilMarkdown caps nesting at 16, so recursion is bounded).
private struct MarkdownLineRenderer {
    let theme: Theme
    var listDepth = 0

    func blocks(_ blocks: [MarkdownBlock], width: Int, tight: Bool) -> [StyledLine] {
        var result: [StyledLine] = []
        for (index, block) in blocks.enumerated() {
            if index > 0, !tight { result.append(.empty) }
            result.append(contentsOf: self.block(block, width: max(width, 1)))
        }
        return result
    }

    private func block(_ block: MarkdownBlock, width: Int) -> [StyledLine] {
        switch block {
        case .heading(_, let runs):
            return StyledWrapper.wrap(spans(runs, base: theme.accent.adding(.bold)), width: width)
        case .paragraph(let runs):
            return StyledWrapper.wrap(spans(runs, base: theme.text), width: width)
        case .codeBlock(_, let code):
            return codeLines(code, width: width)
        case .list(let list):
            return listLines(list, width: width)
        case .blockQuote(let inner):
            let bar = StyledSpan("│ ", style: theme.border)
            let lines = blocks(inner, width: width - 2, tight: false)
            return (lines.isEmpty ? [.empty] : lines).map { StyledLine([bar] + $0.spans) }
        case .table(let table):
            return tableLines(table, width: width)
        case .thematicBreak:
            return [StyledLine(String(repeating: "─", count: width), style: theme.border)]
        case .html(let text):
            return StyledWrapper.wrap(plain: text, style: theme.secondary, width: width)
        }
    }

    /// Code is never re-wrapped: each line is cut with "…" and padded so the background fills
    /// the block's width; tabs become four spaces.
    private func codeLines(_ code: String, width: Int) -> [StyledLine] {
        code.split(separator: "\n", omittingEmptySubsequences: false).map { raw in
            var text = " "
            for character in raw { text += character == "\t" ? "    " : String(character) }
            let cut = DisplayWidth.truncate(text, to: width)
            let padding = max(width - DisplayWidth.of(cut), 0)
            return StyledLine(cut + String(repeating: " ", count: padding), style: theme.code)
        }
    }

    private func listLines(_ list: MarkdownList, width: Int) -> [StyledLine] {
        let markers: [String] = list.items.indices.map { index in
            switch list.kind {
            case .bullet: return ["•", "◦", "▪"][listDepth % 3] + " "
            case .ordered(let start): return "\(start + index). "
            }
        }
        let markerWidth = markers.map { DisplayWidth.of($0) }.max() ?? 2
        var nested = self
        nested.listDepth += 1
        var result: [StyledLine] = []
        for (index, item) in list.items.enumerated() {
            if index > 0, !list.isTight { result.append(.empty) }
            var lines = nested.blocks(item, width: width - markerWidth, tight: list.isTight)
            if lines.isEmpty { lines = [.empty] }
            let marker = markers[index]
            let padded = String(repeating: " ", count: markerWidth - DisplayWidth.of(marker)) + marker
            let indent = StyledSpan(String(repeating: " ", count: markerWidth), style: theme.text)
            for (lineIndex, line) in lines.enumerated() {
                let prefix = lineIndex == 0 ? StyledSpan(padded, style: theme.secondary) : indent
                result.append(StyledLine([prefix] + line.spans))
            }
        }
        return result
    }

    private func tableLines(_ table: MarkdownTable, width: Int) -> [StyledLine] {
        let widths = table.columnWidths(fitting: width)
        guard !widths.isEmpty else { return [] }
        func border(_ left: String, _ middle: String, _ right: String) -> StyledLine {
            let text = left + widths.map { String(repeating: "─", count: $0 + 2) }.joined(separator: middle) + right
            return StyledLine(text, style: theme.border)
        }
        var result = [border("┌", "┬", "┐")]
        for (rowIndex, row) in ([table.header] + table.rows).enumerated() {
            let base = rowIndex == 0 ? theme.text.adding(.bold) : theme.text
            let cells = widths.indices.map { column in
                let runs = column < row.count ? row[column] : []
                let flat = runs.map { $0.isLineBreak ? MarkdownRun(" ", style: $0.style, link: $0.link) : $0 }
                return StyledWrapper.wrap(spans(flat, base: base), width: widths[column])
            }
            let height = cells.map(\.count).max() ?? 1
            for lineIndex in 0..<height {
                var builder = StyledWrapper.LineBuilder()
                builder.append("│", width: 1, style: theme.border)
                for (column, cell) in cells.enumerated() {
                    let line = lineIndex < cell.count ? cell[lineIndex] : .empty
                    let (left, right) = table.alignments[column].padding(room: widths[column] - line.width)
                    builder.append(String(repeating: " ", count: left + 1), width: left + 1, style: theme.text)
                    for span in line.spans {
                        builder.append(span.text, width: DisplayWidth.of(span.text), style: span.style)
                    }
                    builder.append(String(repeating: " ", count: right + 1), width: right + 1, style: theme.text)
                    builder.append("│", width: 1, style: theme.border)
                }
                result.append(builder.line)
            }
            if rowIndex == 0 { result.append(border("├", "┼", "┤")) }
        }
        result.append(border("└", "┴", "┘"))
        return result
    }

    /// Runs as spans on `base`, with ` (destination)` after a link whose text is not its
    /// destination, so the address stays readable in a terminal.
    private func spans(_ runs: [MarkdownRun], base: CellStyle) -> [StyledSpan] {
        var result: [StyledSpan] = []
        var index = 0
        while index < runs.count {
            let run = runs[index]
            result.append(StyledSpan(run.text, style: style(run.style, base: base)))
            index += 1
            guard let destination = run.link else { continue }
            var text = run.text
            while index < runs.count, runs[index].link == destination {
                text += runs[index].text
                result.append(StyledSpan(runs[index].text, style: style(runs[index].style, base: base)))
                index += 1
            }
            let shown = destination.hasPrefix("mailto:") ? String(destination.dropFirst(7)) : destination
            if !destination.isEmpty, text != shown, text != destination {
                result.append(StyledSpan(" (\(destination))", style: theme.secondary))
            }
        }
        return result
    }

    private func style(_ markdown: MarkdownStyle, base: CellStyle) -> CellStyle {
        var style = base
        if markdown.contains(.code) { style = theme.code.adding(base.attributes) }
        if markdown.contains(.link) {
            style.foreground = theme.link.foreground
            style.attributes.formUnion(theme.link.attributes)
        }
        if markdown.contains(.emphasis) { style.attributes.insert(.italic) }
        if markdown.contains(.strong) { style.attributes.insert(.bold) }
        if markdown.contains(.strikethrough) { style.attributes.insert(.strikethrough) }
        return style
    }
}
