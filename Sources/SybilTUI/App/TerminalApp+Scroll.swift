extension TerminalApp {
    /// A scroll request from a key or the wheel.
    enum ScrollStep {
        case lines(Int)
        case pageUp, pageDown, top, bottom
    }

    /// Scrolls the timeline; asks for an older page when the reader is near the top.
    mutating func scrollTimeline(_ step: ScrollStep) -> [AppCommand] {
        timelineWasScrolled = true
        switch step {
        case .lines(let lines): scroll.scroll(byLines: lines)
        case .pageUp: scroll.pageUp()
        case .pageDown: scroll.pageDown()
        case .top: scroll.scrollToTop()
        case .bottom: scroll.scrollToBottom()
        }
        switch step {
        case .lines(let lines) where lines < 0: return scroll.isNearTop ? [.loadOlder] : []
        case .pageUp, .top: return scroll.isNearTop ? [.loadOlder] : []
        default: return []
        }
    }

    /// Follows the bottom again (after sending).
    mutating func scrollTimelineToBottom() {
        timelineWasScrolled = true
        scroll.scrollToBottom()
    }

    /// Whether the person scrolled the timeline since the last call (then cleared).
    public mutating func takeTimelineScrolled() -> Bool {
        defer { timelineWasScrolled = false }
        return timelineWasScrolled
    }
}
