import SybilClient
import SybilTesting
import SybilTimeline
import SybilWire
import Testing

/// One host driven through a day's use: select → load → live overlay → park → another chat →
/// return → refresh with non-overlapping rows, checking rows, revision and epochs each step.
@MainActor
@Suite("Workspace chat scenario", .timeLimit(.minutes(2)))
struct WorkspaceChatScenarioTests {
    @Test func selectLoadOverlayParkReturnRefresh() async throws {
        let rpc = ScriptedWorkspaceChatRPC()
        let clock = ManualClock()
        let cache = WorkspaceChatHostCache { key in
            WorkspaceChatHost(key: key, rpc: rpc, clock: clock, random: FixedRandomSource())
        }

        // 1. Select chat A: an empty unconfirmed chat starts a fresh load (epoch 1).
        rpc.expect(.load(chatA))
        cache.selectDuringRender(chatA)
        cache.commitPendingSelection()
        await rpc.waitForCall(.load(chatA))
        let host = try #require(cache.selectedHost)
        #expect(host.timeline.displayEpoch == 1)
        #expect(host.timeline.revision == 0)

        // 2. The window loads.
        rpc.answer(.load(chatA), with: .envelope(Envelopes.envelope(["a1", "a2"], activeRun: "run-1")))
        await eventually("window") { host.appliedLoads == 1 }
        #expect(host.timeline.rows.map(\.id) == ["row:a1", "row:a2"])
        #expect(host.timeline.revision == 1)

        // 3. A live overlay streams in.
        let live = TimelineBlock(
            type: .agentReply, id: "l1", origin: .live, sourceOrder: [3], timestamp: 0, text: "Arbeite…", runId: "run-1"
        )
        host.applyLiveOverlay(LiveOverlay(settlementEpoch: 1, revision: 1, blocks: [live]))
        #expect(host.timeline.rows.map(\.id) == ["row:a1", "row:a2", "run:run-1/row:l1"])
        #expect(host.timeline.revision == 2)

        // 4. Another chat: A is parked with its rows and overlay; B loads.
        rpc.expect(.load(chatB))
        cache.select(chatB)
        await rpc.waitForCall(.load(chatB))
        #expect(!host.isActive)
        #expect(host.timeline.rows.map(\.id) == ["row:a1", "row:a2", "run:run-1/row:l1"])
        rpc.answer(.load(chatB), with: .envelope(Envelopes.envelope(["b1"])))
        await eventually("B loaded") { cache.selectedHost?.appliedLoads == 1 }
        // While parked, A's run ends: A is only marked stale.
        host.handle(.runEnded(.finished))
        #expect(!host.isLoading, "a parked host starts no load")
        #expect(host.refreshState.isStale)
        #expect(rpc.received == [.load(chatA), .load(chatB)])

        // 5. Back to A: the same host, stale, reloads; the overlay's row is now history.
        rpc.expect(.load(chatA))
        cache.select(chatA)
        #expect(cache.selectedHost === host)
        await rpc.waitForCall(.load(chatA))
        let settled = TimelineBlock(
            type: .agentReply, id: "l1", origin: .canonical, sourceOrder: [3], timestamp: 0, text: "Fertig.",
            runId: "run-1")
        var envelope = Envelopes.envelope(["a1", "a2"])
        envelope.timeline.append(settled)
        envelope.liveOverlay = LiveOverlay(settlementEpoch: 2, revision: 0, blocks: [])
        rpc.answer(.load(chatA), with: .envelope(envelope))
        await eventually("A reloaded") { host.appliedLoads == 2 }
        #expect(host.timeline.rows.map(\.id) == ["row:a1", "row:a2", "run:run-1/row:l1"], "the live row kept its key")
        #expect(host.timeline.rows.map(\.state) == [.confirmed, .confirmed, .confirmed])
        #expect(host.timeline.revision == 3)
        #expect(host.timeline.displayEpoch == 1)

        // 6. An explicit refresh returns rows that do not overlap: a new display epoch.
        rpc.expect(.load(chatA))
        cache.handleForSelected(.explicitRefresh)
        await rpc.waitForCall(.load(chatA))
        rpc.answer(.load(chatA), with: .envelope(Envelopes.envelope(["n1", "n2"])))
        await eventually("refreshed") { host.appliedLoads == 3 }
        #expect(host.timeline.rows.map(\.id) == ["row:n1", "row:n2"])
        #expect(host.timeline.displayEpoch == 2)
        #expect(host.timeline.revision == 4)

        cache.setAppActive(false)
        rpc.verifyDone()
    }
}
