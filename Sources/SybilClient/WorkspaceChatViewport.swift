/// What the front end measured about the chat list, reported to
/// ``WorkspaceChatScreenModel/updateViewport(_:)`` whenever it changes. Points, top-down:
/// a content offset of 0 shows the top of the content.
public struct WorkspaceChatViewport: Sendable, Hashable {
    /// A laid-out row: its id (``SybilTimeline/TimelineRow/id``) and the top of its frame in
    /// content coordinates.
    public struct VisibleRow: Sendable, Hashable {
        /// The row's id.
        public var id: String
        /// The top of the row in content coordinates.
        public var minY: Double

        /// A row at `minY`.
        public init(id: String, minY: Double) {
            self.id = id
            self.minY = minY
        }
    }

    /// Distance of the viewport's top from the content's top.
    public var contentOffset: Double
    /// Height of all laid-out content.
    public var contentHeight: Double
    /// Height of the visible area.
    public var visibleHeight: Double
    /// Rows on screen, top first. While ``WorkspaceChatScreenModel/anchorRowId`` is set the
    /// front end also reports that row, wherever it is laid out.
    public var visibleRows: [VisibleRow]
    /// Whether the composer is open (overlay updates slow to 2 per second).
    public var isComposerOpen: Bool
    /// Whether a preview is open (overlay updates slow to 2 per second).
    public var isPreviewOpen: Bool
    /// Whether the user's finger (or mouse) is dragging the list.
    public var isDragging: Bool
    /// Whether the system asks for reduced motion (follow-bottom jumps).
    public var reduceMotion: Bool

    /// A viewport; everything not given is closed, idle and empty.
    public init(
        contentOffset: Double = 0, contentHeight: Double = 0, visibleHeight: Double = 0,
        visibleRows: [VisibleRow] = [], isComposerOpen: Bool = false, isPreviewOpen: Bool = false,
        isDragging: Bool = false, reduceMotion: Bool = false
    ) {
        self.contentOffset = contentOffset
        self.contentHeight = contentHeight
        self.visibleHeight = visibleHeight
        self.visibleRows = visibleRows
        self.isComposerOpen = isComposerOpen
        self.isPreviewOpen = isPreviewOpen
        self.isDragging = isDragging
        self.reduceMotion = reduceMotion
    }

    /// Distance from the top, what ``SybilTimeline/OlderPageTrigger`` measures.
    public var distanceFromTop: Double { contentOffset }

    /// The offset that shows the end of the content.
    public var bottomOffset: Double { max(0, contentHeight - visibleHeight) }

    /// Points left to scroll to reach the bottom (0 at or past it).
    public var distanceFromBottom: Double { max(0, bottomOffset - contentOffset) }

    /// The content does not fill the visible area (a short history).
    public var isShortHistory: Bool { contentHeight < visibleHeight }

    /// Whether the composer or a preview is open.
    public var isComposerOrPreviewOpen: Bool { isComposerOpen || isPreviewOpen }
}
