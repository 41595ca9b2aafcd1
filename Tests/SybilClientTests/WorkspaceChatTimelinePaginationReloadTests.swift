import SybilClient
import SybilTesting
import SybilTimeline
import Testing

/// Ported from seed 000: a recovery reload keeps the rows until its snapshot is applied, and
/// a pending reload survives a transient connection loss.
@MainActor
@Suite("WorkspaceChatTimelinePaginationReloadTests", .timeLimit(.minutes(2)))
struct WorkspaceChatTimelinePaginationReloadTests {
    @Test func aRecoveryReloadKeepsTheRowsUntilItsSnapshotIsApplied() async {
        let rpc = ScriptedWorkspaceChatRPC()
        let clock = ManualClock()
        let host = makeHost(rpc: rpc, clock: clock)
        await rpc.serveLoad(
            of: chatA, with: Envelopes.envelope(["a", "b"], hasOlder: true, cursor: "cur-a"), to: host
        ) { host.activate() }
        // Older page (older pages load only through a screen model), then the desktop
        // restarts: a recovery reload.
        let screen = WorkspaceChatScreenModel(host: host, clock: clock)
        await revealScreen(screen, clock: clock)
        rpc.expect(.pageBefore(chatA, cursor: "cur-a"))
        screen.updateViewport(tallViewport(offset: 0))
        await rpc.waitForCall(.pageBefore(chatA, cursor: "cur-a"))
        rpc.answer(
            .pageBefore(chatA, cursor: "cur-a"), with: .page(Envelopes.page(["z"], hasOlder: true, cursor: "cur-z")))
        await eventually("the older page is loaded") { !screen.isLoadingOlderPage }
        #expect(screen.displayRows.rows.map(\.id) == ["row:z", "row:a", "row:b"])
        screen.close()
        #expect(host.timeline.rows.map(\.id) == ["row:z", "row:a", "row:b"])
        rpc.expect(.load(chatA))
        host.handle(.desktopRestored)
        await rpc.waitForCall(.load(chatA))
        #expect(host.timeline.rows.map(\.id) == ["row:z", "row:a", "row:b"], "rows stay while reloading")
        #expect(host.timeline.oldestCursor == "cur-z")
        rpc.answer(.load(chatA), with: .envelope(Envelopes.envelope(["b", "c"], hasOlder: true, cursor: "cur-b")))
        await eventually("recovery snapshot applied") { host.appliedLoads == 2 }
        #expect(host.timeline.rows.map(\.id) == ["row:b", "row:c"])
        #expect(host.timeline.displayEpoch == 1, "overlapping refresh: the first load's epoch stays")
        rpc.verifyDone()
        host.park()
    }

    @Test func aPendingReloadSurvivesATransientConnectionLoss() async {
        let rpc = ScriptedWorkspaceChatRPC()
        let host = makeHost(rpc: rpc)
        await rpc.serveLoad(of: chatA, with: Envelopes.envelope(["a"]), to: host) { host.activate() }
        rpc.expect(.load(chatA))
        host.handle(.runEnded(.finished))
        await rpc.waitForCall(.load(chatA))
        host.handle(.sessionUpdated(updatedAt: 5))  // pending while the first reload runs
        rpc.expect(.load(chatA))
        rpc.answer(.load(chatA), with: .failure(.init(description: "connection lost")))
        // The failure keeps the rows, and the pending reload still runs.
        await rpc.waitForCall(.load(chatA))
        #expect(host.timeline.rows.map(\.id) == ["row:a"])
        #expect(host.lastLoadError == "connection lost")
        rpc.answer(.load(chatA), with: .envelope(Envelopes.envelope(["a", "b"])))
        await eventually("the pending reload applies") { host.appliedLoads == 2 }
        #expect(host.timeline.rows.map(\.id) == ["row:a", "row:b"])
        #expect(host.lastLoadError == nil)
        rpc.verifyDone()
        host.park()
    }
}
