import SybilClient
import SybilTimeline

/// The terminal's side of the workspace chat screen model's viewport contract: a timeline
/// draw measured in lines becomes the ``SybilClient/WorkspaceChatViewport`` the model decides
/// from (one line counts ``pointsPerLine`` points, so the model's thresholds — 1,800 pt to
/// the top for an older page, half a point to the bottom — mean 90 lines and the last line),
/// and the model's ``SybilClient/ScrollCommand`` becomes a move of the terminal's scroll.
/// Pure: the model decides, this only translates.
public enum WorkspaceViewportReport {
    /// Points one terminal line stands for (a phone's body line).
    public static var pointsPerLine: Double { 20 }

    /// Lines measured above and below the viewport: enough for the older-page threshold to be
    /// told apart from "far".
    public static var measuredLines: Int {
        Int((OlderPageTrigger<ContinuousClock.Instant>.threshold / pointsPerLine).rounded(.up)) + 1
    }

    /// The viewport the model is told for `measured`: offsets and heights in points, with the
    /// lines above and below as far as they were measured, and each drawn item's top.
    public static func viewport(
        _ measured: TimelineDrawReport, isComposerOpen: Bool, isDragging: Bool, reduceMotion: Bool
    ) -> WorkspaceChatViewport {
        let line = pointsPerLine
        let above = Double(measured.linesAbove)
        let content = measured.linesAbove + measured.linesShown + measured.linesBelow
        return WorkspaceChatViewport(
            contentOffset: above * line, contentHeight: Double(content) * line,
            visibleHeight: Double(measured.rows) * line,
            visibleRows: measured.items.map { .init(id: $0.id, minY: (above + Double($0.row)) * line) },
            isComposerOpen: isComposerOpen, isDragging: isDragging, reduceMotion: reduceMotion)
    }

    /// Applies the model's `command` to `scroll`, as measured by `measured`: a jump follows the
    /// bottom, a step scrolls down by whole lines (at least one), an offset moves by the lines
    /// between it and the measured one (none when the terminal already kept the reader's row).
    public static func apply(_ command: ScrollCommand, to scroll: inout TimelineScroll, measured: TimelineDrawReport) {
        switch command {
        case .none:
            break
        case .jumpToBottom:
            scroll.scrollToBottom()
        case .step(let points):
            guard points > 0 else { return }
            scroll.scroll(byLines: max(1, Int((points / pointsPerLine).rounded(.up))))
        case .setOffset(let offset):
            let lines = Int((offset / pointsPerLine).rounded()) - measured.linesAbove
            if lines != 0 { scroll.scroll(byLines: lines) }
        }
    }
}
