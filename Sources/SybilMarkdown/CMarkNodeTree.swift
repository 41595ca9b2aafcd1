import CCMarkGFM
import SybilCore

/// What the tree walk reports: a node entered (with what the model needs of it) or a
/// container left. No C type leaves this file.
enum CMarkEvent {
    /// A node entered; leaves (text, code, breaks, code blocks, HTML, thematic breaks) are
    /// only entered.
    case enter(CMarkNodeKind)
    /// A block container left.
    case exitBlock
    /// An inline container (emphasis, strong, link, image, strikethrough) left.
    case exitInline
}

/// A cmark-gfm node, translated into Swift values.
enum CMarkNodeKind {
    case document
    case blockQuote
    case list(MarkdownList.Kind, isTight: Bool)
    case item
    case paragraph
    case heading(level: Int)
    case codeBlock(info: String, literal: String)
    case htmlBlock(String)
    case thematicBreak
    case table([MarkdownTable.Alignment])
    case tableRow
    case tableCell
    /// A block container this model does not know (footnotes, custom blocks): its content
    /// joins the enclosing block.
    case otherBlock
    case text(String)
    case softBreak
    case lineBreak
    case code(String)
    case htmlInline(String)
    case emphasis
    case strong
    case strikethrough
    case link(String)
    /// An inline container this model does not know: its content keeps the outer style.
    case otherInline
}

/// Owns the root of one parsed document (freed, with every node below it, in `deinit`).
final class CMarkNodeTree {
    private let root: OpaquePointer

    init(root: OpaquePointer) {
        self.root = root
    }

    deinit {
        cmark_node_free(root)
    }

    /// Walks the tree in document order with cmark's own iterator (no recursion, so any
    /// nesting depth is safe), handing each event to `body`.
    func walk(_ body: (CMarkEvent) -> Void) {
        guard let iterator = cmark_iter_new(root) else { return }
        defer { cmark_iter_free(iterator) }
        while true {
            let event = cmark_iter_next(iterator)
            if event == CMARK_EVENT_DONE { return }
            guard let node = cmark_iter_get_node(iterator) else { continue }
            let kind = Self.kind(of: node)
            if event == CMARK_EVENT_ENTER {
                body(.enter(kind))
            } else if event == CMARK_EVENT_EXIT {
                body(Self.isInline(node) ? .exitInline : .exitBlock)
            }
        }
    }

    private static func isInline(_ node: OpaquePointer) -> Bool {
        cmark_node_get_type(node).rawValue & UInt32(CMARK_NODE_TYPE_MASK) == UInt32(CMARK_NODE_TYPE_INLINE)
    }

    private static func literal(_ node: OpaquePointer) -> String {
        safe(cmark_node_get_literal(node))
    }

    /// A string cmark-gfm produced, made display-safe: it decodes character references
    /// (`&#27;`) after the input was made safe, so every literal, info string and URL is
    /// checked again.
    private static func safe(_ text: UnsafePointer<CChar>?) -> String {
        text.map { TerminalText.safe(String(cString: $0)) } ?? ""
    }

    private static func kind(of node: OpaquePointer) -> CMarkNodeKind {
        switch cmark_node_get_type(node) {
        case CMARK_NODE_DOCUMENT: return .document
        case CMARK_NODE_BLOCK_QUOTE: return .blockQuote
        case CMARK_NODE_LIST:
            let tight = cmark_node_get_list_tight(node) != 0
            if cmark_node_get_list_type(node) == CMARK_ORDERED_LIST {
                return .list(.ordered(start: Int(cmark_node_get_list_start(node))), isTight: tight)
            }
            return .list(.bullet, isTight: tight)
        case CMARK_NODE_ITEM: return .item
        case CMARK_NODE_PARAGRAPH: return .paragraph
        case CMARK_NODE_HEADING: return .heading(level: Int(cmark_node_get_heading_level(node)))
        case CMARK_NODE_CODE_BLOCK:
            let info = safe(cmark_node_get_fence_info(node))
            return .codeBlock(info: info, literal: literal(node))
        case CMARK_NODE_HTML_BLOCK: return .htmlBlock(literal(node))
        case CMARK_NODE_THEMATIC_BREAK: return .thematicBreak
        case CMARK_NODE_TEXT: return .text(literal(node))
        case CMARK_NODE_SOFTBREAK: return .softBreak
        case CMARK_NODE_LINEBREAK: return .lineBreak
        case CMARK_NODE_CODE: return .code(literal(node))
        case CMARK_NODE_HTML_INLINE: return .htmlInline(literal(node))
        case CMARK_NODE_EMPH: return .emphasis
        case CMARK_NODE_STRONG: return .strong
        case CMARK_NODE_LINK, CMARK_NODE_IMAGE:
            return .link(safe(cmark_node_get_url(node)))
        default: return extensionKind(of: node)
        }
    }

    /// Table and strikethrough nodes have types assigned when the extensions register, so
    /// they are told apart by their type string.
    private static func extensionKind(of node: OpaquePointer) -> CMarkNodeKind {
        let name = cmark_node_get_type_string(node).map { String(cString: $0) } ?? ""
        switch name {
        case "strikethrough": return .strikethrough
        case "table":
            let columns = Int(cmark_gfm_extensions_get_table_columns(node))
            var alignments: [MarkdownTable.Alignment] = []
            if let raw = cmark_gfm_extensions_get_table_alignments(node) {
                for index in 0..<columns {
                    switch raw[index] {
                    case UInt8(ascii: "l"): alignments.append(.left)
                    case UInt8(ascii: "c"): alignments.append(.center)
                    case UInt8(ascii: "r"): alignments.append(.right)
                    default: alignments.append(.none)
                    }
                }
            }
            return .table(alignments)
        case "table_header", "table_row": return .tableRow
        case "table_cell": return .tableCell
        default: return isInline(node) ? .otherInline : .otherBlock
        }
    }
}
