import SybilClient
import SybilTesting
import SybilTimeline
import SybilWire
import Testing

/// The smallest step of `ManualClock`: one attosecond.
let oneTick = Duration(secondsComponent: 0, attosecondsComponent: 1)

/// A list whose 10,000 pt of content fill an 800 pt viewport, scrolled to `offset` (at the
/// bottom by default).
func tallViewport(
    offset: Double = 9_200, contentHeight: Double = 10_000, rows: [WorkspaceChatViewport.VisibleRow] = [],
    composerOpen: Bool = false, dragging: Bool = false, reduceMotion: Bool = false
) -> WorkspaceChatViewport {
    WorkspaceChatViewport(
        contentOffset: offset, contentHeight: contentHeight, visibleHeight: 800, visibleRows: rows,
        isComposerOpen: composerOpen, isDragging: dragging, reduceMotion: reduceMotion)
}

/// Runs the settle passes the screen has started, one 32 ms step at a time with a display tick
/// after each (a tick runs the pass that is due), and checks that settling ends with an
/// unchanged viewport after exactly three passes (two stable passes after the first).
@MainActor
func runSettlePasses(
    _ screen: WorkspaceChatScreenModel<ManualClock>, clock: ManualClock,
    sourceLocation: SourceLocation = #_sourceLocation
) async {
    #expect(screen.isSettling, "settling started", sourceLocation: sourceLocation)
    for pass in 1...SettlePasses.stablePassesNeeded + 1 {
        #expect(screen.isSettling, "still settling before pass \(pass)", sourceLocation: sourceLocation)
        clock.advance(by: SettlePasses.interval)
        screen.frame()
    }
    #expect(!screen.isSettling, "settled", sourceLocation: sourceLocation)
}

/// Reports a full viewport at the bottom and lets the cover's settle passes run until it lifts.
@MainActor
func revealScreen(
    _ screen: WorkspaceChatScreenModel<ManualClock>, clock: ManualClock,
    viewport: WorkspaceChatViewport = tallViewport(), sourceLocation: SourceLocation = #_sourceLocation
) async {
    screen.updateViewport(viewport)
    await runSettlePasses(screen, clock: clock, sourceLocation: sourceLocation)
    #expect(!screen.isCovered, sourceLocation: sourceLocation)
}

/// A live overlay of run `run-1` at `revision` with one live reply.
func liveOverlay(_ revision: Int64, thinking: Bool = false) -> LiveOverlay {
    let block = TimelineBlock(
        type: thinking ? .thinking : .agentReply, id: "live-\(revision)", origin: .live, sourceOrder: [1],
        timestamp: 0, text: "live \(revision)", runId: "run-1")
    return LiveOverlay(settlementEpoch: 1, revision: revision, blocks: [block])
}
