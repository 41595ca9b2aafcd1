import Foundation
import SybilClient
import SybilCore
import SybilServer
import SybilTesting
import SybilTimeline
import SybilWire
import Testing

/// A desktop restarted in the middle of a run, end to end: the phone holds the dead run's live
/// overlay when the desktop goes away; the restarted desktop's overlays must replace it.
@MainActor
@Suite("Workspace chats across a desktop restart", .timeLimit(.minutes(2)))
struct WorkspaceRestartEndToEndTests {
    @Test func aDesktopRestartedMidRunReplacesTheDeadRunsLiveRowsOnThePhone() async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let clock = ManualClock()
        let first = try startServer(clock: clock) { $0.storage = .directory(directory.path) }
        let switching = SwitchingChatRPC(first: desktopClient(first))
        let host = WorkspaceChatHost(
            key: emptyChat, rpc: switching, clock: ContinuousClock(), random: SeededRandomSource(seed: 1))
        host.activate()
        await waitUntil("the first load") { host.appliedLoads == 1 }

        // sess-43 has never settled a run: this one runs under the chat's first epoch.
        let receipt = try await desktopClient(first).codexChatSubmit(
            WorkspaceSubmission(chat: emptyChat, operationId: "op-1", mutationId: "m-1", mode: .send, text: "Go."))
        guard case .accepted = receipt.outcome else { throw ExpectationFailure("the send was not accepted") }
        // Two steps of the run: its thinking and its activity rows are live on the desktop.
        for _ in 0..<2 {
            #expect(await clock.waitForSleepers(count: 1))
            clock.advance(by: .milliseconds(40))
        }
        var revision: Int64 = 0
        while revision < 3 {
            host.handle(.explicitRefresh)
            let loads = host.appliedLoads
            await waitUntil("a load") { host.appliedLoads > loads }
            revision = host.timeline.overlay.revision
        }
        #expect(host.timeline.rows.contains { $0.state == .live && $0.type != .user }, "the run's rows are live")

        // The desktop is killed mid-run: its storage as the kill leaves it (the run still
        // running, nothing settled) is what the next start finds. A shutdown would settle the
        // run first, so the second start opens a copy taken while the run was live.
        let killed = temporaryDirectory().appendingPathComponent("killed")
        defer { try? FileManager.default.removeItem(at: killed.deletingLastPathComponent()) }
        try FileManager.default.copyItem(at: directory, to: killed)
        await first.shutdown(grace: .zero)
        let second = try startServer(clock: ManualClock()) { $0.storage = .directory(killed.path) }
        defer { Task { await second.shutdown(grace: .zero) } }
        switching.use(desktopClient(second))
        let loads = host.appliedLoads
        host.handle(.desktopRestored)
        await waitUntil("the reload after the restart") { host.appliedLoads > loads }
        #expect(host.timeline.activeRunId == nil, "the restarted desktop runs nothing")
        #expect(
            !host.timeline.rows.contains { $0.state == .live },
            "no live row of the dead run is left on the phone: \(host.timeline.rows.map(\.id))")
        #expect(host.timeline.overlay == (try await desktopClient(second).codexChatLoad(emptyChat)).liveOverlay)
        host.park()
    }
}
