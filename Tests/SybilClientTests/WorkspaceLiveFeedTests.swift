import SybilClient
import SybilTesting
import SybilTimeline
import SybilWire
import Testing

/// The live feed between the desktop's events and the selected host.
@MainActor
@Suite("Workspace live feed", .timeLimit(.minutes(2)))
struct WorkspaceLiveFeedTests {
    typealias Update = WorkspaceEventsClient<ManualClock>.Update

    private func block(_ id: String, epoch: Int64) -> TimelineBlock {
        TimelineBlock(
            type: .agentReply, id: id, origin: .live, sourceOrder: [9], timestamp: 0, text: "live \(id)",
            runId: "run-\(epoch)")
    }

    /// Run 4's overlay as the host first loads it, and as it grows by a second block.
    private var live: LiveOverlay { LiveOverlay(settlementEpoch: 4, revision: 1, blocks: [block("l1", epoch: 4)]) }
    private var grown: LiveOverlay {
        LiveOverlay(settlementEpoch: 4, revision: 2, blocks: [block("l1", epoch: 4), block("l2", epoch: 4)])
    }

    /// A host that has loaded row a1 with `live` while run 4 is active, and a feed following
    /// the updates `continuation` yields into it.
    private func followedHost(
        rpc: ScriptedWorkspaceChatRPC
    ) async -> (WorkspaceChatHost, WorkspaceLiveFeed, AsyncStream<Update>.Continuation) {
        let host = makeHost(rpc: rpc)
        await rpc.serveLoad(
            of: chatA, with: Envelopes.envelope(["a1"], overlay: live, activeRun: "run-4"), to: host
        ) { host.activate() }
        let (updates, continuation) = AsyncStream<Update>.makeStream()
        let feed = WorkspaceLiveFeed()
        feed.follow(updates, host: host)
        return (host, feed, continuation)
    }

    private func stop(
        _ feed: WorkspaceLiveFeed, _ continuation: AsyncStream<Update>.Continuation, _ host: WorkspaceChatHost,
        _ rpc: ScriptedWorkspaceChatRPC
    ) async {
        continuation.finish()
        await feed.stop()
        host.park()
        rpc.verifyDone()
    }

    @Test func sameEpochOverlaysAreShownANewerEpochReloadsInsteadOfEmptyingTheWindow() async throws {
        let rpc = ScriptedWorkspaceChatRPC()
        let (host, feed, continuation) = await followedHost(rpc: rpc)
        continuation.yield(.event(.overlay(grown), id: "1.1"))
        await feed.waitForEvents(1)
        #expect(host.timeline.overlay == grown, "an overlay of the same epoch is shown as it comes")

        // The run settled: the desktop's next epoch starts empty. Applied alone it would take
        // the live rows away before history has them; the window reloads instead.
        rpc.expect(.load(chatA))
        continuation.yield(.event(.overlay(LiveOverlay(settlementEpoch: 5, revision: 0, blocks: [])), id: "1.2"))
        await feed.waitForEvents(2)
        #expect(host.timeline.overlay == grown, "the live rows stay until the snapshot")
        await rpc.waitForCall(.load(chatA))
        rpc.answer(
            .load(chatA),
            with: .envelope(
                Envelopes.envelope(
                    ["a1", "a2", "a3"], overlay: LiveOverlay(settlementEpoch: 5, revision: 0, blocks: []))
            ))
        await eventually("the snapshot applies") { host.appliedLoads == 2 }
        #expect(host.timeline.rows.map(\.id) == ["row:a1", "row:a2", "row:a3"])
        #expect(host.timeline.overlay.settlementEpoch == 5)

        await stop(feed, continuation, host, rpc)
    }

    @Test func aDeltaAppliesToTheShownOverlayOldNewsIsIgnoredAndAMissedChangeReloads() async throws {
        let rpc = ScriptedWorkspaceChatRPC()
        let (host, feed, continuation) = await followedHost(rpc: rpc)
        let delta = try #require(LiveOverlayDelta(from: live, to: grown))
        continuation.yield(.event(.overlayDelta(delta), id: "1.1"))
        await feed.waitForEvents(1)
        #expect(host.timeline.overlay == grown, "the delta's base is the overlay shown")
        // The same delta again is old news: nothing changes and nothing loads.
        continuation.yield(.event(.overlayDelta(delta), id: "1.2"))
        await feed.waitForEvents(2)
        #expect(host.timeline.overlay == grown)
        #expect(host.appliedLoads == 1)

        // A delta from revision 3 means revision 3 was missed: the chat reloads.
        rpc.expect(.load(chatA))
        let missed = LiveOverlayDelta(
            settlementEpoch: 4, revision: 4, baseRevision: 3, blockIds: ["l1"], blocks: [])
        continuation.yield(.event(.overlayDelta(missed), id: "1.3"))
        await feed.waitForEvents(3)
        #expect(host.timeline.overlay == grown, "it is not applied")
        await rpc.waitForCall(.load(chatA))
        let reloaded = LiveOverlay(settlementEpoch: 4, revision: 4, blocks: [block("l1", epoch: 4)])
        rpc.answer(.load(chatA), with: .envelope(Envelopes.envelope(["a1"], overlay: reloaded, activeRun: "run-4")))
        await eventually("the snapshot applies") { host.appliedLoads == 2 }
        #expect(host.timeline.overlay == reloaded)

        await stop(feed, continuation, host, rpc)
    }

    @Test func aNewerEpochAskedForOnceIsNotReloadedForEachOfItsOverlaysWhileHistoryIsUnavailable() async throws {
        let rpc = ScriptedWorkspaceChatRPC()
        let (host, feed, continuation) = await followedHost(rpc: rpc)
        rpc.expect(.load(chatA))
        continuation.yield(.event(.overlay(LiveOverlay(settlementEpoch: 5, revision: 0, blocks: [])), id: "1.1"))
        await feed.waitForEvents(1)
        await rpc.waitForCall(.load(chatA))
        // History cannot be read just now: the window and the epoch-4 overlay stay (SPEC §4.3).
        let epoch5 = LiveOverlay(settlementEpoch: 5, revision: 1, blocks: [block("m1", epoch: 5)])
        rpc.answer(
            .load(chatA),
            with: .envelope(Envelopes.envelope([], state: .unavailable(reason: "indexing"), overlay: epoch5)))
        await eventually("the snapshot applies") { host.appliedLoads == 2 }
        #expect(host.timeline.overlay == live)

        // The new epoch's run goes on streaming: its overlays were asked for already, and the
        // busy host's polls (10 s) ask again; each overlay does not start another load.
        for revision in Int64(2)...Int64(40) {
            let blocks = (1...revision).map { block("m\($0)", epoch: 5) }
            continuation.yield(
                .event(
                    .overlay(LiveOverlay(settlementEpoch: 5, revision: revision, blocks: blocks)), id: "2.\(revision)"))
        }
        await feed.waitForEvents(40)
        #expect(!host.isLoading, "no load started for the new epoch's later overlays")
        #expect(host.appliedLoads == 2)

        await stop(feed, continuation, host, rpc)
    }
}
