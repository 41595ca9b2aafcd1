import SybilCore
import SybilMarkdown

/// Lays out ``TimelineItem``s as styled lines for a width, the role deciding the look: the
/// person's messages on the right (three quarters of the width at most, flush right), replies under their author with Markdown rendered when
/// ``TimelineItem/isMarkdown``, system and activity rows dim, the thinking status and a
/// subagent row as one line, date separators and the unread marker centred; a status line
/// under an item in its tone's colour. Laid-out lines are cached by (id, revision, width) in
/// a bounded cache that drops the least recently used entry; changing the theme empties it.
public struct TimelineLayout: Sendable {
    /// What a cached layout is found by.
    private struct Key: Hashable, Sendable {
        var id: String
        var revision: Int
        var width: Int
    }

    private struct Entry: Sendable {
        var lines: [StyledLine]
        var lastUse: UInt64
    }

    /// The most layouts kept.
    public let capacity: Int
    /// How many items were laid out (cache misses) since this value was created: the measure
    /// of how much work drawing did.
    public private(set) var layoutCount = 0
    private var cache: [Key: Entry] = [:]
    private var clock: UInt64 = 0
    private var theme: Theme?

    /// A layout with an empty cache holding at most `capacity` items (at least 1).
    public init(capacity: Int = 2_000) {
        self.capacity = max(capacity, 1)
    }

    /// How many layouts the cache holds.
    public var cachedCount: Int { cache.count }

    /// The lines of `item` for `width` columns, from the cache when it holds (id, revision,
    /// width) for this theme.
    public mutating func lines(for item: TimelineItem, width: Int, theme: Theme) -> [StyledLine] {
        if self.theme != theme {
            cache.removeAll(keepingCapacity: true)
            self.theme = theme
        }
        clock &+= 1
        let key = Key(id: item.id, revision: item.revision, width: width)
        if let entry = cache[key] {
            cache[key]?.lastUse = clock
            return entry.lines
        }
        let lines = Self.lines(for: item, width: width, theme: theme)
        layoutCount += 1
        if cache.count >= capacity, let oldest = cache.min(by: { $0.value.lastUse < $1.value.lastUse })?.key {
            cache.removeValue(forKey: oldest)
        }
        cache[key] = Entry(lines: lines, lastUse: clock)
        return lines
    }

    /// The lines of `item` for `width` columns (at least 1), uncached. Every line fits the width.
    public static func lines(for item: TimelineItem, width: Int, theme: Theme) -> [StyledLine] {
        let width = max(width, 1)
        var lines: [StyledLine] = []
        var spacer = true
        switch item.role {
        case .user:
            // The person's own message sits on the right, as a bubble does on a phone: wrapped
            // to three quarters of the width, the block flush right, its status under it.
            var block = body(item, style: theme.user, width: bubbleWidth(width), theme: theme)
            if let status = item.status, !status.isEmpty {
                block.append(
                    StyledLine(
                        DisplayWidth.truncate(oneLine(status), to: bubbleWidth(width)), style: tone(item.tone, theme)))
            }
            lines += flushRight(block, width: width)
            lines.append(.empty)
            return lines
        case .assistant:
            if let author = item.author { lines.append(header(author, style: theme.accent, width: width)) }
            lines += body(item, style: theme.assistant, width: width, theme: theme)
        case .system:
            lines += StyledWrapper.wrap(plain: safe(item.body), style: theme.secondary, width: width)
        case .activity:
            let wrapped = StyledWrapper.wrap(plain: safe(item.body), style: theme.secondary, width: width - 2)
            lines += wrapped.enumerated().map { index, line in
                StyledLine([StyledSpan(index == 0 ? "· " : "  ", style: theme.secondary)] + line.spans)
            }
            spacer = false
        case .thinking:
            let text = item.body.isEmpty ? "Thinking…" : oneLine(item.body)
            lines.append(
                StyledLine(DisplayWidth.truncate("✻ " + text, to: width), style: theme.secondary.adding(.italic)))
            spacer = false
        case .subagent:
            let row = StyledLine([
                StyledSpan("▸ ", style: theme.accent), StyledSpan(oneLine(item.body), style: theme.text),
            ])
            lines.append(StyledWrapper.clip(row, to: width))
            spacer = false
        case .dateSeparator:
            lines.append(centred("── \(oneLine(item.body)) ──", style: theme.secondary, width: width))
            spacer = false
        case .unreadMarker:
            let label = item.body.isEmpty ? "new" : oneLine(item.body)
            lines.append(centred("── \(label) ──", style: theme.accent, width: width))
            spacer = false
        }
        if let status = item.status, !status.isEmpty {
            lines.append(StyledLine(DisplayWidth.truncate(oneLine(status), to: width), style: tone(item.tone, theme)))
        }
        if spacer { lines.append(.empty) }
        return lines
    }

    /// The widest a message of the person's takes: three quarters of `width`, at least 1.
    static func bubbleWidth(_ width: Int) -> Int {
        width < 24 ? width : max(width * 3 / 4, 1)
    }

    /// `block` moved right so its widest line ends at the last column; its lines keep their
    /// left edge with each other.
    private static func flushRight(_ block: [StyledLine], width: Int) -> [StyledLine] {
        let widest = block.map(\.width).max() ?? 0
        let pad = max(width - widest, 0)
        guard pad > 0 else { return block }
        let indent = StyledSpan(String(repeating: " ", count: pad))
        return block.map { $0.spans.isEmpty ? $0 : StyledLine([indent] + $0.spans) }
    }

    private static func header(_ text: String, style: CellStyle, width: Int) -> StyledLine {
        StyledLine(DisplayWidth.truncate(oneLine(text), to: width), style: style)
    }

    private static func body(_ item: TimelineItem, style: CellStyle, width: Int, theme: Theme) -> [StyledLine] {
        if item.isMarkdown { return MarkdownLines.lines(markdown: item.body, width: width, theme: theme) }
        return StyledWrapper.wrap(plain: safe(item.body), style: style, width: width)
    }

    private static func centred(_ text: String, style: CellStyle, width: Int) -> StyledLine {
        let cut = DisplayWidth.truncate(text, to: width)
        let left = (width - DisplayWidth.of(cut)) / 2
        return StyledLine(String(repeating: " ", count: max(left, 0)) + cut, style: style)
    }

    private static func tone(_ tone: TimelineItem.Tone, _ theme: Theme) -> CellStyle {
        switch tone {
        case .normal: theme.secondary
        case .warning: theme.warning
        case .error: theme.error
        case .success: theme.success
        }
    }

    /// Text from the network is drawn, never obeyed: control characters become U+FFFD.
    private static func safe(_ text: String) -> String { TerminalText.safe(text) }

    /// One line of text: newlines become spaces.
    private static func oneLine(_ text: String) -> String {
        String(safe(text).map { $0 == "\n" ? " " : $0 })
    }
}
