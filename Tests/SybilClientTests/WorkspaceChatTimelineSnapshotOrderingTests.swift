import SybilClient
import SybilTimeline
import Testing

/// Ported from seed 000: only the active operation may apply its snapshot, and a changed
/// target generation rejects an earlier one.
@MainActor
@Suite("WorkspaceChatTimelineSnapshotOrderingTests", .timeLimit(.minutes(2)))
struct WorkspaceChatTimelineSnapshotOrderingTests {
    @Test func aChangedTargetGenerationRejectsTheEarlierSnapshot() async {
        let rpc = ScriptedWorkspaceChatRPC()
        let host = makeHost(rpc: rpc)
        rpc.expect(.load(chatA))
        host.activate()
        await rpc.waitForCall(.load(chatA))
        // The chat is selected again while the first load runs: a new generation.
        host.reselect()
        rpc.expect(.load(chatA))
        rpc.answer(.load(chatA), with: .envelope(Envelopes.envelope(["stale-1"])))
        // The first snapshot is dropped; the coalesced request for the new generation starts.
        await rpc.waitForCall(.load(chatA))
        #expect(host.appliedLoads == 0)
        #expect(host.timeline.rows.isEmpty, "the earlier generation's rows never appear")
        rpc.answer(.load(chatA), with: .envelope(Envelopes.envelope(["fresh-1", "fresh-2"])))
        await eventually("the second snapshot applies") { host.appliedLoads == 1 }
        #expect(host.timeline.rows.map(\.id) == ["row:fresh-1", "row:fresh-2"])
        rpc.verifyDone()
        host.park()
    }

    @Test func onlyOneOperationIsActiveAndRequestsCoalesce() async {
        let rpc = ScriptedWorkspaceChatRPC()
        let host = makeHost(rpc: rpc)
        rpc.expect(.load(chatA))
        host.activate()
        await rpc.waitForCall(.load(chatA))
        host.handle(.explicitRefresh)
        host.handle(.runEnded(.finished))
        host.handle(.desktopRestored)
        #expect(rpc.received.count == 1, "no second load while one is active")
        rpc.expect(.load(chatA))
        rpc.answer(.load(chatA), with: .envelope(Envelopes.envelope(["a"])))
        await rpc.waitForCall(.load(chatA))
        #expect(host.appliedLoads == 1, "the active operation applied its snapshot")
        rpc.answer(.load(chatA), with: .envelope(Envelopes.envelope(["a", "b"])))
        await eventually("the coalesced load applies") { host.appliedLoads == 2 }
        #expect(rpc.received.count == 2, "three triggers, one more load")
        rpc.verifyDone()
        host.park()
    }
}
