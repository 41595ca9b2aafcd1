/// Turns the events of a cmark-gfm tree walk into ``MarkdownBlock`` values with an explicit
/// stack, so no nesting depth recurses. Containers beyond the nesting limit become
/// pass-through frames whose blocks join the enclosing frame.
struct MarkdownTreeBuilder {
    private enum FrameKind {
        case document
        case blockQuote
        case list(MarkdownList.Kind, isTight: Bool)
        case item
        case paragraph
        case heading(level: Int)
        case table([MarkdownTable.Alignment])
        case tableRow
        case tableCell
        case passThrough
    }

    private struct Frame {
        var kind: FrameKind
        var blocks: [MarkdownBlock] = []
        var items: [[MarkdownBlock]] = []
        var runs: [MarkdownRun] = []
        var cells: [[MarkdownRun]] = []
        var rows: [[[MarkdownRun]]] = []

        init(_ kind: FrameKind) {
            self.kind = kind
        }
    }

    private let maximumNestingDepth: Int
    private var stack: [Frame] = [Frame(.document)]
    /// Block quotes and lists open on the stack (pass-through frames not counted).
    private var depth = 0
    /// Open inline containers: the style each adds and the link destination it sets.
    private var inlineStack: [(style: MarkdownStyle, link: String?)] = []

    init(maximumNestingDepth: Int) {
        self.maximumNestingDepth = maximumNestingDepth
    }

    mutating func handle(_ event: CMarkEvent) {
        switch event {
        case .enter(let kind): enter(kind)
        case .exitBlock: closeFrame()
        case .exitInline: _ = inlineStack.popLast()
        }
    }

    /// The document's blocks once the walk has ended.
    mutating func finish() -> [MarkdownBlock] {
        while stack.count > 1 { closeFrame() }
        return stack[0].blocks
    }

    private mutating func enter(_ kind: CMarkNodeKind) {
        switch kind {
        case .document: break
        case .blockQuote: openContainer(.blockQuote)
        case .list(let listKind, let isTight): openContainer(.list(listKind, isTight: isTight))
        case .item:
            if case .list = stack[stack.count - 1].kind {
                stack.append(Frame(.item))
            } else {
                stack.append(Frame(.passThrough))
            }
        case .paragraph: stack.append(Frame(.paragraph))
        case .heading(let level): stack.append(Frame(.heading(level: min(max(level, 1), 6))))
        case .table(let alignments): stack.append(Frame(.table(alignments)))
        case .tableRow: stack.append(Frame(.tableRow))
        case .tableCell: stack.append(Frame(.tableCell))
        case .otherBlock: stack.append(Frame(.passThrough))
        case .codeBlock(let info, let literal):
            appendBlock(.codeBlock(info: info, code: literal.hasSuffix("\n") ? String(literal.dropLast()) : literal))
        case .htmlBlock(let literal):
            appendBlock(.html(literal.hasSuffix("\n") ? String(literal.dropLast()) : literal))
        case .thematicBreak: appendBlock(.thematicBreak)
        case .text(let text), .htmlInline(let text): appendRun(text, extra: [])
        case .softBreak: appendRun(" ", extra: [])
        case .lineBreak: appendRun("\n", extra: [])
        case .code(let text): appendRun(text, extra: .code)
        case .emphasis: inlineStack.append((.emphasis, nil))
        case .strong: inlineStack.append((.strong, nil))
        case .strikethrough: inlineStack.append((.strikethrough, nil))
        case .link(let destination): inlineStack.append((.link, destination))
        case .otherInline: inlineStack.append(([], nil))
        }
    }

    private mutating func openContainer(_ kind: FrameKind) {
        if depth >= maximumNestingDepth {
            stack.append(Frame(.passThrough))
        } else {
            depth += 1
            stack.append(Frame(kind))
        }
    }

    private mutating func appendBlock(_ block: MarkdownBlock) {
        stack[stack.count - 1].blocks.append(block)
    }

    private mutating func appendRun(_ text: String, extra: MarkdownStyle) {
        var style = extra
        var link: String?
        for entry in inlineStack {
            style.formUnion(entry.style)
            if let destination = entry.link { link = destination }
        }
        let top = stack.count - 1
        if let last = stack[top].runs.last, last.style == style, last.link == link, !last.isLineBreak,
            text != "\n"
        {
            stack[top].runs[stack[top].runs.count - 1].text += text
        } else {
            stack[top].runs.append(MarkdownRun(text, style: style, link: link))
        }
    }

    private mutating func closeFrame() {
        guard stack.count > 1, let frame = stack.popLast() else { return }
        let top = stack.count - 1
        switch frame.kind {
        case .document: break
        case .passThrough: stack[top].blocks.append(contentsOf: frame.blocks)
        case .blockQuote:
            depth -= 1
            stack[top].blocks.append(.blockQuote(frame.blocks))
        case .list(let kind, let isTight):
            depth -= 1
            stack[top].blocks.append(.list(MarkdownList(kind: kind, isTight: isTight, items: frame.items)))
        case .item: stack[top].items.append(frame.blocks)
        case .paragraph: stack[top].blocks.append(.paragraph(frame.runs))
        case .heading(let level): stack[top].blocks.append(.heading(level: level, runs: frame.runs))
        case .table(let alignments):
            let header = frame.rows.first ?? []
            let rows = Array(frame.rows.dropFirst())
            let columns = max(alignments.count, header.count)
            let padded = alignments + Array(repeating: .none, count: columns - alignments.count)
            stack[top].blocks.append(.table(MarkdownTable(alignments: padded, header: header, rows: rows)))
        case .tableRow: stack[top].rows.append(frame.cells)
        case .tableCell: stack[top].cells.append(frame.runs)
        }
    }
}
