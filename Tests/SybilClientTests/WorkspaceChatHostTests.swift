import SybilClient
import SybilTesting
import SybilTimeline
import SybilWire
import Testing

@MainActor
@Suite("Workspace chat host", .timeLimit(.minutes(2)))
struct WorkspaceChatHostTests {
    /// Activates a host and applies its first window.
    private func loadedHost(
        rpc: ScriptedWorkspaceChatRPC, clock: ManualClock, jitter: UInt64 = 0,
        envelope: WorkspaceChatLoadEnvelope = Envelopes.envelope(["a"])
    ) async -> WorkspaceChatHost {
        let host = makeHost(rpc: rpc, clock: clock, jitter: jitter)
        await rpc.serveLoad(of: chatA, with: envelope, to: host) { host.activate() }
        return host
    }

    /// Advances to just before `delay` (nothing happens), then to it: a poll loads, answered
    /// with `envelope` and applied.
    private func expectPoll(
        after delay: Duration, rpc: ScriptedWorkspaceChatRPC, clock: ManualClock, host: WorkspaceChatHost,
        answer envelope: WorkspaceChatLoadEnvelope = Envelopes.envelope(["a"]),
        sourceLocation: SourceLocation = #_sourceLocation
    ) async {
        let loads = rpc.received.count
        #expect(await clock.waitForSleepers(count: 1), sourceLocation: sourceLocation)
        clock.advance(by: delay - .milliseconds(1))
        // A poll starts only when its wait ends; the advance wakes due sleepers at once.
        #expect(clock.sleeperCount == 1, "the poll still waits 1 ms early", sourceLocation: sourceLocation)
        #expect(rpc.received.count == loads, "no poll 1 ms early", sourceLocation: sourceLocation)
        await rpc.serveLoad(of: chatA, with: envelope, to: host, sourceLocation: sourceLocation) {
            clock.advance(by: .milliseconds(1))
        }
    }

    @Test func pollsEvery60SecondsWhenIdle() async {
        let rpc = ScriptedWorkspaceChatRPC()
        let clock = ManualClock()
        let host = await loadedHost(rpc: rpc, clock: clock)
        #expect(!host.isBusy)
        await expectPoll(after: .seconds(60), rpc: rpc, clock: clock, host: host)
        await expectPoll(after: .seconds(60), rpc: rpc, clock: clock, host: host)
        host.park()
        rpc.verifyDone()
    }

    @Test func pollsEvery10SecondsWhileARunIsActive() async {
        let rpc = ScriptedWorkspaceChatRPC()
        let clock = ManualClock()
        let host = await loadedHost(rpc: rpc, clock: clock, envelope: Envelopes.envelope(["a"], activeRun: "run-1"))
        #expect(host.isBusy)
        await expectPoll(
            after: .seconds(10), rpc: rpc, clock: clock, host: host,
            answer: Envelopes.envelope(["a"], activeRun: "run-1"))
        host.park()
        rpc.verifyDone()
    }

    @Test func pollsEvery10SecondsWhileAMessageIsPending() async {
        let rpc = ScriptedWorkspaceChatRPC()
        let clock = ManualClock()
        let host = await loadedHost(rpc: rpc, clock: clock)
        host.addPendingMessage(PendingMessage(operationId: "op-1", text: "hi", createdAt: 1))
        #expect(host.isBusy)
        await expectPoll(after: .seconds(10), rpc: rpc, clock: clock, host: host)
        host.park()
        rpc.verifyDone()
    }

    @Test func jitterAddsUpTo30Percent() async {
        let rpc = ScriptedWorkspaceChatRPC()
        let clock = ManualClock()
        let host = await loadedHost(rpc: rpc, clock: clock, jitter: .max)
        // The largest jitter is just under 30 %: 60 s becomes 77.999… s.
        let delay = RefreshPolicy().pollDelay(busy: false, random: FixedRandomSource(value: .max))
        #expect(delay > .seconds(77) && delay < .seconds(78))
        await expectPoll(after: delay, rpc: rpc, clock: clock, host: host)
        host.park()
        rpc.verifyDone()
    }

    @Test func aFailedLoadKeepsTheRowsAndLoadsAfreshAtTheNextActivation() async {
        let rpc = ScriptedWorkspaceChatRPC()
        let clock = ManualClock()
        let host = await loadedHost(rpc: rpc, clock: clock, envelope: Envelopes.envelope(["a", "b"]))
        rpc.expect(.load(chatA))
        host.handle(.explicitRefresh)
        await rpc.waitForCall(.load(chatA))
        rpc.answer(.load(chatA), with: .failure(.init(description: "desktop offline")))
        await eventually("failure recorded") { host.refreshState.needsFreshLoad }
        #expect(host.timeline.rows.map(\.id) == ["row:a", "row:b"])
        #expect(host.lastLoadError == "desktop offline")
        host.park()
        await rpc.serveLoad(of: chatA, with: Envelopes.envelope(["a", "b", "c"]), to: host) { host.activate() }
        #expect(!host.refreshState.needsFreshLoad)
        host.park()
        rpc.verifyDone()
    }

    @Test func aParkedHostStartsNothingAndKeepsItsRows() async {
        let rpc = ScriptedWorkspaceChatRPC()
        let clock = ManualClock()
        let overlay = LiveOverlay(
            settlementEpoch: 1, revision: 1,
            blocks: [
                TimelineBlock(
                    type: .agentReply, id: "l", origin: .live, sourceOrder: [1], timestamp: 0, text: "…", runId: "r")
            ])
        let host = await loadedHost(rpc: rpc, clock: clock, envelope: Envelopes.envelope(["a"], overlay: overlay))
        host.park()
        host.handle(.runEnded(.failed))
        host.handle(.sessionUpdated(updatedAt: 99))
        clock.advance(by: .seconds(3_600))
        // A load starts synchronously when the scheduler takes a request: none was taken.
        #expect(!host.isLoading, "no load while parked")
        #expect(rpc.received.count == 1, "no load while parked")
        #expect(host.timeline.rows.map(\.id) == ["row:a", "run:r/row:l"])
        #expect(clock.sleeperCount == 0, "no polling while parked")
        await rpc.serveLoad(of: chatA, with: Envelopes.envelope(["a"]), to: host) { host.activate() }
        #expect(host.appliedLoads == 2)
        host.park()
        rpc.verifyDone()
    }

    @Test func aLoadInFlightWhenTheHostParksNeverAppliesAndStartsAgainAtActivation() async {
        let rpc = ScriptedWorkspaceChatRPC()
        let clock = ManualClock()
        let host = makeHost(rpc: rpc, clock: clock)
        rpc.expect(.load(chatA))
        host.activate()
        await rpc.waitForCall(.load(chatA))
        host.park()
        #expect(!host.isLoading, "parking cancels the load in flight")
        // The desktop answers the cancelled load anyway: its window must not show.
        rpc.answer(.load(chatA), with: .envelope(Envelopes.envelope(["a"])))
        // Activation asks again; the second answer is the one shown, the only one applied
        // (the first answer was handed over before the second load even started).
        rpc.expect(.load(chatA))
        host.activate()
        await rpc.waitForCall(.load(chatA))
        rpc.answer(.load(chatA), with: .envelope(Envelopes.envelope(["b"])))
        await eventually("the second load applies") { host.timeline.rows.map(\.id) == ["row:b"] }
        #expect(host.appliedLoads == 1, "the cancelled load never applied")
        host.park()
        rpc.verifyDone()
    }

    @Test func anOlderSessionUpdateIsNotATrigger() async {
        let rpc = ScriptedWorkspaceChatRPC()
        let clock = ManualClock()
        let host = await loadedHost(rpc: rpc, clock: clock)
        await rpc.serveLoad(of: chatA, with: Envelopes.envelope(["a"]), to: host) {
            host.handle(.sessionUpdated(updatedAt: 200))
        }
        host.handle(.sessionUpdated(updatedAt: 200))
        host.handle(.sessionUpdated(updatedAt: 150))
        #expect(!host.isLoading, "neither the same nor an older update starts a load")
        #expect(rpc.received.count == 2)
        host.park()
        rpc.verifyDone()
    }
}
