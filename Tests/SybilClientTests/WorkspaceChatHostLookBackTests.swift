import SybilClient
import SybilTesting
import SybilTimeline
import SybilWire
import Testing

/// A message that settled while the phone was not looking can be pushed out of the newest
/// window before the next load; the host then reads older pages for it (without showing
/// them) and completes it, instead of leaving it pending for good.
@MainActor
@Suite("Workspace chat host: confirming messages before the window", .timeLimit(.minutes(2)))
struct WorkspaceChatHostLookBackTests {
    private let message = PendingMessage(operationId: "op-1", text: "hi", createdAt: 0)

    private func userRow(_ id: String, operationId: String) -> TimelineBlock {
        Envelopes.row(id, .user, operationId: operationId)
    }

    @Test func aMessageSettledBeforeTheWindowIsConfirmedFromOlderPages() async {
        let rpc = ScriptedWorkspaceChatRPC()
        let host = makeHost(rpc: rpc)
        var confirmed: [[String]] = []
        host.onConfirmedOperations = { confirmed.append($0) }
        host.addPendingMessage(message)
        await rpc.serveLoad(
            of: chatA, with: Envelopes.envelope(["a", "b"], hasOlder: true, cursor: "c-2"), to: host,
            followedBy: [.pageBefore(chatA, cursor: "c-2"), .pageBefore(chatA, cursor: "c-1")]
        ) { host.activate() }
        await rpc.waitForCall(.pageBefore(chatA, cursor: "c-2"))
        #expect(host.timeline.pending == [message], "still pending while the look-back reads")
        rpc.answer(
            .pageBefore(chatA, cursor: "c-2"), with: .page(Envelopes.page(["x", "y"], hasOlder: true, cursor: "c-1")))
        await rpc.waitForCall(.pageBefore(chatA, cursor: "c-1"))
        let older = WorkspaceChatPage(
            threadId: nil, timeline: [userRow("u-1", operationId: "op-1"), Envelopes.row("z")], hasOlderEntries: true,
            oldestCursor: "c-0")
        #expect(host.isLookingBack, "the status line says older history is read")
        rpc.answer(.pageBefore(chatA, cursor: "c-1"), with: .page(older))
        await eventually("the look-back finishes") { !host.isLookingBack }
        #expect(confirmed == [["op-1"]])
        #expect(host.timeline.pending.isEmpty)
        #expect(host.timeline.window.map(\.id) == ["a", "b"], "older pages read for the look-back are not shown")
        host.park()
        rpc.verifyDone()
    }

    @Test func anUnchangedWindowIsNotLookedBehindTwice() async {
        let rpc = ScriptedWorkspaceChatRPC()
        let clock = ManualClock()
        let host = makeHost(rpc: rpc, clock: clock)
        host.addPendingMessage(message)
        let window = Envelopes.envelope(["a"], hasOlder: true, cursor: "c-1")
        await rpc.serveLoad(of: chatA, with: window, to: host, followedBy: [.pageBefore(chatA, cursor: "c-1")]) {
            host.activate()
        }
        await rpc.waitForCall(.pageBefore(chatA, cursor: "c-1"))
        rpc.answer(.pageBefore(chatA, cursor: "c-1"), with: .page(Envelopes.page(["x"])))
        await eventually("the look-back finishes") { !host.isLookingBack }
        #expect(host.timeline.pending == [message], "not found: the message is still pending")
        // The 10 s poll of a busy host loads the same window: no page is read again.
        #expect(await clock.waitForSleepers(count: 1))
        await rpc.serveLoad(of: chatA, with: window, to: host) { clock.advance(by: .seconds(10)) }
        #expect(!host.isLookingBack, "the same window starts no second look-back")
        host.park()
        rpc.verifyDone()
    }

    @Test func aFailedPageIsReadAgainAfterTheNextLoad() async {
        let rpc = ScriptedWorkspaceChatRPC()
        let clock = ManualClock()
        let host = makeHost(rpc: rpc, clock: clock)
        var confirmed: [String] = []
        host.onConfirmedOperations = { confirmed += $0 }
        host.addPendingMessage(message)
        let window = Envelopes.envelope(["a"], hasOlder: true, cursor: "c-1")
        await rpc.serveLoad(of: chatA, with: window, to: host, followedBy: [.pageBefore(chatA, cursor: "c-1")]) {
            host.activate()
        }
        await rpc.waitForCall(.pageBefore(chatA, cursor: "c-1"))
        rpc.answer(.pageBefore(chatA, cursor: "c-1"), with: .failure(.init(description: "offline")))
        await eventually("the look-back gives up") { !host.isLookingBack }
        #expect(await clock.waitForSleepers(count: 1))
        rpc.expect(.load(chatA))
        rpc.expect(.pageBefore(chatA, cursor: "c-1"))
        clock.advance(by: .seconds(10))
        await rpc.waitForCall(.load(chatA))
        rpc.answer(.load(chatA), with: .envelope(window))
        await rpc.waitForCall(.pageBefore(chatA, cursor: "c-1"))
        let page = WorkspaceChatPage(
            threadId: nil, timeline: [userRow("u-1", operationId: "op-1")], hasOlderEntries: false, oldestCursor: nil)
        rpc.answer(.pageBefore(chatA, cursor: "c-1"), with: .page(page))
        await eventually("the second look-back confirms the message") {
            !host.isLookingBack && host.timeline.pending.isEmpty
        }
        #expect(confirmed == ["op-1"])
        host.park()
        rpc.verifyDone()
    }

    @Test func aPageBeforeAnUnmovedCursorEndsTheLookBack() async {
        // The desktop says older rows exist but answers the page before c-1 with nothing and
        // c-1 again: the same page would come back each time.
        let rpc = OlderPageAnsweringRPC(envelope: Envelopes.envelope(["a"], hasOlder: true, cursor: "c-1")) { _ in
            Envelopes.page([], hasOlder: true, cursor: "c-1")
        }
        let host = WorkspaceChatHost(key: chatA, rpc: rpc, clock: ManualClock(), random: FixedRandomSource())
        host.addPendingMessage(message)
        host.activate()
        await eventually("the load applied and the look-back ended") { host.appliedLoads == 1 && !host.isLookingBack }
        #expect(rpc.pageCursors == ["c-1"], "the page before c-1 was asked \(rpc.pageCursors.count) times")
        #expect(host.timeline.pending == [message])
        host.park()
    }
}
