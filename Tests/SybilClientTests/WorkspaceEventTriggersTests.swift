import SybilClient
import SybilTimeline
import SybilWire
import Testing

/// What each desktop event makes the selected host do (SPEC §4.2).
@Suite("Workspace event triggers", .timeLimit(.minutes(2)))
struct WorkspaceEventTriggersTests {
    static let overlay = LiveOverlay(
        settlementEpoch: 3, revision: 1,
        blocks: [
            TimelineBlock(
                type: .agentReply, id: "l-1", origin: .live, sourceOrder: [1], timestamp: 1_764_400_000_000,
                text: "Working", runId: "run-1")
        ])

    @Test func anOverlayIsApplied() {
        var triggers = WorkspaceEventTriggers()
        #expect(triggers.handle(.overlay(Self.overlay)) == [.applyOverlay(Self.overlay)])
        #expect(triggers.handle(.overlay(.empty)) == [.applyOverlay(.empty)])
        #expect(triggers.desktopOnline == nil)
    }

    @Test func aDeltaIsAppliedToTheOverlayShown() throws {
        var triggers = WorkspaceEventTriggers()
        var next = Self.overlay
        next.revision = 2
        next.blocks[0].text = "Working on it"
        let delta = try #require(LiveOverlayDelta(from: Self.overlay, to: next))
        #expect(triggers.handle(.overlayDelta(delta)) == [.applyOverlayDelta(delta)])
        #expect(triggers == WorkspaceEventTriggers(), "the overlay shown is the host's, not kept here")
    }

    @Test("a run that has not ended does nothing", arguments: [WorkspaceRunState.started, .queued])
    func runNotEnded(state: WorkspaceRunState) {
        var triggers = WorkspaceEventTriggers()
        #expect(triggers.handle(.run(runId: "run-1", state: state)).isEmpty)
        #expect(triggers == WorkspaceEventTriggers(), "no state is kept for a run")
    }

    @Test(
        "each ending triggers a reload with that ending",
        arguments: [
            (WorkspaceRunState.finished, StalenessTrigger.RunEnding.finished), (.failed, .failed),
            (.cancelled, .cancelled), (.stopped, .stopped),
        ])
    func runEnded(state: WorkspaceRunState, ending: StalenessTrigger.RunEnding) {
        var triggers = WorkspaceEventTriggers()
        #expect(triggers.handle(.run(runId: "run-1", state: state)) == [.trigger(.runEnded(ending))])
    }

    @Test func everyEndingStateTriggersAndNoOtherDoes() {
        for state in WorkspaceRunState.allCases {
            var triggers = WorkspaceEventTriggers()
            let actions = triggers.handle(.run(runId: "run-1", state: state))
            #expect(actions.count == (state.isEnding ? 1 : 0), "\(state): \(actions)")
        }
    }

    @Test func aSessionUpdateTriggersWithItsUpdatedAt() {
        var triggers = WorkspaceEventTriggers()
        #expect(
            triggers.handle(.session(sessionId: "sess-42", updatedAt: 1_764_400_120_000)) == [
                .trigger(.sessionUpdated(updatedAt: 1_764_400_120_000))
            ])
        #expect(
            triggers.handle(.session(sessionId: "sess-42", updatedAt: 1_764_400_120_001)) == [
                .trigger(.sessionUpdated(updatedAt: 1_764_400_120_001))
            ])
    }

    @Test func goingOfflineOnlyReportsReachability() {
        var triggers = WorkspaceEventTriggers()
        #expect(triggers.handle(.desktop(desktopId: "desk-1", online: false)) == [.desktopOnline(false)])
        #expect(triggers.desktopOnline == false)
        #expect(triggers.handle(.desktop(desktopId: "desk-1", online: false)) == [.desktopOnline(false)])
    }

    @Test func comingBackAfterOfflineRestoresTheDesktop() {
        var triggers = WorkspaceEventTriggers()
        _ = triggers.handle(.desktop(desktopId: "desk-1", online: false))
        #expect(
            triggers.handle(.desktop(desktopId: "desk-1", online: true)) == [
                .desktopOnline(true), .trigger(.desktopRestored),
            ])
        #expect(triggers.desktopOnline == true)
        #expect(
            triggers.handle(.desktop(desktopId: "desk-1", online: true)) == [.desktopOnline(true)],
            "a second online is no new restore")
    }

    @Test func onlineWhenNeverOfflineIsNoRestore() {
        var triggers = WorkspaceEventTriggers()
        #expect(triggers.handle(.desktop(desktopId: "desk-1", online: true)) == [.desktopOnline(true)])
        #expect(triggers.desktopOnline == true)
    }

    @Test func otherEventsDoNotForgetTheDesktopWasOffline() {
        var triggers = WorkspaceEventTriggers()
        _ = triggers.handle(.desktop(desktopId: "desk-1", online: false))
        _ = triggers.handle(.overlay(Self.overlay))
        _ = triggers.handle(.run(runId: "run-1", state: .finished))
        _ = triggers.handle(.session(sessionId: "sess-42", updatedAt: 5))
        _ = triggers.handle(.reset(reason: "gone"))
        #expect(
            triggers.handle(.desktop(desktopId: "desk-1", online: true)) == [
                .desktopOnline(true), .trigger(.desktopRestored),
            ])
    }

    @Test func aResetMarksEveryHostStale() {
        var triggers = WorkspaceEventTriggers()
        #expect(
            triggers.handle(.reset(reason: "The server restarted since that event; reload the chat.")) == [
                .markEveryHostStale
            ])
        #expect(triggers.handle(.reset(reason: "")) == [.markEveryHostStale])
    }
}
