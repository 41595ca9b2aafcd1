import Observation
import SybilClient
import SybilCore
import SybilTesting
import SybilTimeline
import SybilWire
import Testing

@MainActor
@Suite("Workspace chat host cache", .timeLimit(.minutes(2)))
struct WorkspaceChatHostCacheTests {
    private func key(_ index: Int) -> WorkspaceChatKey {
        WorkspaceChatKey(desktopId: "desk-1", projectId: "app", sessionId: "s\(index)")
    }

    /// A cache whose hosts load from `rpc`; the app starts in the background unless `active`.
    private func makeCache(rpc: ScriptedWorkspaceChatRPC, active: Bool = false) -> WorkspaceChatHostCache {
        let clock = ManualClock()
        let cache = WorkspaceChatHostCache { key in
            WorkspaceChatHost(key: key, rpc: rpc, clock: clock, random: FixedRandomSource())
        }
        cache.setAppActive(active)
        return cache
    }

    @Test func keepsAtMostSixHostsLeastRecentlyUsedEvicted() {
        let cache = makeCache(rpc: ScriptedWorkspaceChatRPC())
        for index in 1...6 { cache.select(key(index)) }
        #expect(cache.hosts.count == 6)
        let sixth = cache.hosts.map(\.key)
        #expect(sixth == (1...6).map(key))
        cache.select(key(2))  // now the most recent
        cache.select(key(7))
        #expect(cache.hosts.count == 6)
        #expect(cache.hosts.map(\.key) == [3, 4, 5, 6, 2, 7].map(key), "s1 was the least recently used")
    }

    @Test func aReturningChatKeepsItsHost() {
        let cache = makeCache(rpc: ScriptedWorkspaceChatRPC())
        cache.select(key(1))
        let first = cache.selectedHost
        cache.select(key(2))
        cache.select(key(1))
        #expect(cache.selectedHost === first)
    }

    @Test func aSelectionDuringRenderPublishesNothingUntilCommitted() {
        let cache = makeCache(rpc: ScriptedWorkspaceChatRPC())
        cache.select(key(1))
        let published = Flag()
        withObservationTracking {
            _ = cache.selectedKey
            _ = cache.hosts
            _ = cache.selectedHost
        } onChange: {
            published.set()
        }
        cache.selectDuringRender(key(2))
        #expect(!published.isSet, "recorded only")
        #expect(cache.selectedKey == key(1))
        #expect(cache.hasPendingSelection)
        cache.commitPendingSelection()
        #expect(published.isSet)
        #expect(cache.selectedKey == key(2))
        #expect(!cache.hasPendingSelection)
    }

    @Test func onlyTheSelectedHostIsActiveAndOnlyItLoads() async {
        let rpc = ScriptedWorkspaceChatRPC()
        let cache = makeCache(rpc: rpc)
        for index in 1...3 { cache.select(key(index)) }
        #expect(rpc.received.isEmpty, "nothing loads in the background")
        await rpc.serveLoad(of: key(3), with: Envelopes.envelope(["x"]), to: cache.selectedHost) {
            cache.setAppActive(true)
        }
        #expect(cache.hosts.filter(\.isActive).map(\.key) == [key(3)])
        // Triggers reach the selected chat only; the parked ones are never loaded.
        await rpc.serveLoad(of: key(3), with: Envelopes.envelope(["x"]), to: cache.selectedHost) {
            cache.handleForSelected(.desktopChanged)
        }
        #expect(rpc.received == [.load(key(3)), .load(key(3))])
        cache.setAppActive(false)
        #expect(cache.hosts.allSatisfy { !$0.isActive })
        rpc.verifyDone()
    }

    @Test func returningToTheForegroundReloadsTheSelectedChat() async {
        let rpc = ScriptedWorkspaceChatRPC()
        let cache = makeCache(rpc: rpc, active: true)
        await rpc.serveLoad(of: key(1), with: Envelopes.envelope(["x"]), to: cache.selectedHost) {
            cache.select(key(1))
        }
        cache.setAppActive(false)
        #expect(cache.selectedHost?.isActive == false)
        await rpc.serveLoad(of: key(1), with: Envelopes.envelope(["x"]), to: cache.selectedHost) {
            cache.setAppActive(true)
        }
        #expect(cache.selectedHost?.appliedLoads == 2)
        cache.setAppActive(false)
        rpc.verifyDone()
    }

    @Test func reselectingTheSelectedChatReloadsIt() async {
        let rpc = ScriptedWorkspaceChatRPC()
        let cache = makeCache(rpc: rpc, active: true)
        await rpc.serveLoad(of: key(1), with: Envelopes.envelope(["x"]), to: cache.selectedHost) {
            cache.select(key(1))
        }
        await rpc.serveLoad(of: key(1), with: Envelopes.envelope(["x", "y"]), to: cache.selectedHost) {
            cache.selectDuringRender(key(1))
            cache.commitPendingSelection()
        }
        #expect(cache.selectedHost?.timeline.rows.count == 2)
        cache.setAppActive(false)
        rpc.verifyDone()
    }

    /// Seed 000 (W5): another desktop chosen marks the chat stale; a cached chat chosen again
    /// after one on another desktop loads, while one on the same desktop comes back as it was.
    @Test func aCachedChatChosenAfterAnotherDesktopsChatReloads() async {
        let rpc = ScriptedWorkspaceChatRPC()
        let cache = makeCache(rpc: rpc, active: true)
        let other = WorkspaceChatKey(desktopId: "desk-2", projectId: "ci", sessionId: "s9")
        await rpc.serveLoad(of: key(1), with: Envelopes.envelope(["x"]), to: cache.selectedHost) {
            cache.select(key(1))
        }
        await rpc.serveLoad(of: key(2), with: Envelopes.envelope(["y"]), to: cache.selectedHost) {
            cache.select(key(2))
        }
        cache.select(key(1))
        #expect(rpc.received == [.load(key(1)), .load(key(2))], "the same desktop: the cached rows come back")
        await rpc.serveLoad(of: other, with: Envelopes.envelope(["z"]), to: cache.selectedHost) {
            cache.select(other)
        }
        cache.select(nil)
        await rpc.serveLoad(of: key(1), with: Envelopes.envelope(["x", "w"]), to: cache.selectedHost) {
            cache.select(key(1))
        }
        #expect(cache.selectedHost?.timeline.rows.count == 2, "another desktop was chosen in between")
        cache.setAppActive(false)
        rpc.verifyDone()
    }
}

/// A flag the observation callback (which may run on any thread) can set.
private final class Flag: Sendable {
    private let value = Locked(false)
    var isSet: Bool { value.withLock { $0 } }
    func set() { value.withLock { $0 = true } }
}
