/// Renders a reply while it streams: ``feed(_:)`` takes each text delta and returns the
/// rendering of the blocks that are complete; ``finish()`` returns the rest. The outputs,
/// concatenated, equal ``TerminalMarkdownRenderer/render(markdown:limits:)`` of the whole
/// text, because the text is cut only where CommonMark cannot join what comes before with
/// what comes after (see ``MarkdownBlockBoundary``). One difference remains by design: a
/// link reference definition (`[x]: url`) applies only to the blocks after it, not to
/// earlier blocks already shown. Text that piles up past the size limit without a cut (an
/// unclosed fence) is shown as it is, so memory stays bounded.
public struct MarkdownStreamRenderer: Sendable {
    /// The renderer each complete part goes through.
    public let renderer: TerminalMarkdownRenderer
    /// The parser's limits; ``MarkdownLimits/maximumInputBytes`` also bounds what is held.
    public let limits: MarkdownLimits

    /// Text received and not yet rendered.
    private var pending: [UInt8] = []
    /// Offset in ``pending`` of the first line not yet scanned.
    private var scanned = 0
    private var boundary = MarkdownBlockBoundary()
    private var emittedAny = false

    /// A stream renderer drawing with `renderer`.
    public init(renderer: TerminalMarkdownRenderer, limits: MarkdownLimits = .standard) {
        self.renderer = renderer
        self.limits = limits
    }

    /// How many bytes are held waiting for their block to complete.
    public var pendingByteCount: Int { pending.count }

    /// Takes the next delta; returns the rendering of the blocks it completed (often empty).
    public mutating func feed(_ delta: String) -> String {
        pending.append(contentsOf: delta.utf8)
        var output = ""
        while let newline = pending[scanned...].firstIndex(of: 0x0A) {
            let lineStart = scanned
            scanned = newline + 1
            if boundary.line(pending[lineStart..<newline]), lineStart > 0 {
                output += emit(count: lineStart)
            }
        }
        if pending.count > limits.maximumInputBytes {
            output += emit(count: pending.count)
            boundary = MarkdownBlockBoundary()
        }
        return output
    }

    /// What ``finish()`` would return now, without taking it: the rendering of the block still
    /// growing (and its separator from the blocks before it), for a front end that redraws
    /// that block in place as it grows. Its cost is that of the pending text only.
    public func preview() -> String {
        guard !pending.isEmpty else { return "" }
        let rendered = renderer.render(markdown: String(decoding: pending, as: UTF8.self), limits: limits)
        guard !rendered.isEmpty else { return "" }
        return emittedAny ? "\n" + rendered : rendered
    }

    /// The rendering of everything not yet returned; the renderer is then empty again.
    public mutating func finish() -> String {
        let output = emit(count: pending.count)
        boundary = MarkdownBlockBoundary()
        emittedAny = false
        return output
    }

    /// Renders and drops the first `count` pending bytes (a whole number of lines, or all).
    private mutating func emit(count: Int) -> String {
        let text = String(decoding: pending[..<count], as: UTF8.self)
        pending.removeFirst(count)
        scanned -= min(count, scanned)
        let rendered = renderer.render(markdown: text, limits: limits)
        guard !rendered.isEmpty else { return "" }
        defer { emittedAny = true }
        return emittedAny ? "\n" + rendered : rendered
    }
}
