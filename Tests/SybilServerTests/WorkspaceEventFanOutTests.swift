import SybilCore
import SybilWire
import Testing

@testable import SybilServer

/// The fan-out of workspace events to slow subscribers: overlays coalesce at the tail, other
/// events keep their order up to a per-subscriber bound, and the total held is bounded.
@Suite("Workspace event fan-out", .timeLimit(.minutes(2)))
struct WorkspaceEventFanOutTests {
    typealias Event = WorkspaceDesktopService.Event
    private static let chat = WorkspaceChatKey(desktopId: "desk-1", projectId: "proj-app", sessionId: "sess-42")
    private static let other = WorkspaceChatKey(desktopId: "desk-1", projectId: "proj-app", sessionId: "sess-7")

    private static func row(_ id: String, _ text: String) -> TimelineBlock {
        TimelineBlock(
            type: .agentReply, id: id, origin: .live, sourceOrder: [1, 3], timestamp: 1, text: text, runId: "run-1")
    }

    private static func overlay(_ revision: Int64, _ blocks: [TimelineBlock], epoch: Int64 = 1) -> LiveOverlay {
        LiveOverlay(settlementEpoch: epoch, revision: revision, blocks: blocks)
    }

    private static func delta(_ from: LiveOverlay, _ to: LiveOverlay) throws -> WorkspaceEvent {
        .overlayDelta(try #require(LiveOverlayDelta(from: from, to: to)))
    }

    private static func run(_ state: WorkspaceRunState) -> WorkspaceEvent { .run(runId: "run-1", state: state) }

    /// Takes up to `count` events, stopping early when the subscription ends.
    private func take(_ subscription: WorkspaceEventFanOut.Subscription, count: Int) async -> [Event] {
        var taken: [Event] = []
        for _ in 0..<count {
            guard let event = await subscription.next() else { break }
            taken.append(event)
        }
        return taken
    }

    @Test func theProductionBoundsAreTheDocumentedOnes() {
        #expect(WorkspaceEventFanOut.totalByteLimit == 64 << 20)
        #expect(WorkspaceEventFanOut.subscriberByteLimit == 16 << 20)
        #expect(WorkspaceEventFanOut.subscriberEventLimit == 1024)
        let fanOut = WorkspaceEventFanOut()
        #expect(fanOut.totalLimit == 64 << 20 && fanOut.subscriberBytes == 16 << 20 && fanOut.subscriberEvents == 1024)
    }

    @Test func overlaysCoalesceAtTheTailWithoutPassingOtherEvents() async throws {
        let fanOut = WorkspaceEventFanOut()
        let slow = fanOut.subscribe(Self.chat)
        let o1 = Self.overlay(1, [Self.row("a", "A")])
        let o2 = Self.overlay(2, [Self.row("a", "A"), Self.row("r", "H")])
        let o3 = Self.overlay(3, [Self.row("a", "A"), Self.row("r", "Hi")])
        let o4 = Self.overlay(4, [Self.row("r", "Hi!")])
        let published: [WorkspaceEvent] = [
            .overlay(o1), Self.run(.started), try Self.delta(o1, o2), try Self.delta(o2, o3), try Self.delta(o3, o4),
            Self.run(.finished), .overlay(Self.overlay(0, [], epoch: 2)), .overlay(Self.overlay(1, [], epoch: 2)),
        ]
        for (index, event) in published.enumerated() {
            fanOut.publish(Event(chat: Self.chat, id: Int64(index + 1), event: event))
        }
        fanOut.publish(Event(chat: Self.other, id: 9, event: Self.run(.started)))  // another chat's
        let taken = await take(slow, count: 5)
        #expect(taken.map(\.id) == [1, 2, 5, 6, 8], "merged overlays keep the newest id; ids only go up")
        #expect(taken.map(\.event.name) == ["overlay", "run", "overlay.delta", "run", "overlay"])
        guard case .overlayDelta(let joined) = taken[2].event else { return }
        #expect(joined.baseRevision == 1 && joined.revision == 4)
        #expect(joined.applied(to: o1) == o4)
        // The merged delta's size was counted exactly, without encoding it.
        #expect(taken[2].size == taken[2].dataText.utf8.count)
        #expect(try WorkspaceEvent.decode(name: "overlay.delta", data: Array(taken[2].dataText.utf8)) == taken[2].event)
        #expect(fanOut.heldBytes == 0)
        slow.cancel()
        #expect(fanOut.subscriberCount == 0)
    }

    @Test func aDeltaAfterAWholeOverlayWaitsBehindIt() async throws {
        let fanOut = WorkspaceEventFanOut()
        let slow = fanOut.subscribe(Self.chat)
        let o1 = Self.overlay(1, [Self.row("a", "A")])
        let o2 = Self.overlay(2, [Self.row("a", "AB")])
        let o3 = Self.overlay(3, [Self.row("a", "ABC")])
        fanOut.publish(Event(chat: Self.chat, id: 1, event: .overlay(o1)))
        fanOut.publish(Event(chat: Self.chat, id: 2, event: try Self.delta(o1, o2)))
        fanOut.publish(Event(chat: Self.chat, id: 3, event: try Self.delta(o2, o3)))
        let taken = await take(slow, count: 2)
        #expect(taken.map(\.id) == [1, 3])
        guard case .overlayDelta(let joined) = taken[1].event else { return }
        #expect(joined.applied(to: o1) == o3)
    }

    @Test func aSubscriberPastItsEventBoundEndsAfterWhatItHas() async {
        let fanOut = WorkspaceEventFanOut(subscriberEvents: 3)
        let atBound = fanOut.subscribe(Self.chat)
        for id in 1...3 { fanOut.publish(Event(chat: Self.chat, id: Int64(id), event: Self.run(.queued))) }
        let overBound = fanOut.subscribe(Self.chat)
        fanOut.publish(Event(chat: Self.other, id: 4, event: Self.run(.queued)))
        // `atBound` holds 3 (the bound): it goes on. One more ends it, keeping the 3.
        fanOut.publish(Event(chat: Self.chat, id: 5, event: Self.run(.started)))
        #expect(await take(atBound, count: 4).map(\.id) == [1, 2, 3])
        #expect(await atBound.next() == nil, "ended: the client replays from 3")
        for id in 6...7 { fanOut.publish(Event(chat: Self.chat, id: Int64(id), event: Self.run(.queued))) }
        #expect(await take(overBound, count: 3).map(\.id) == [5, 6, 7], "held 3 after 5: still going")
        #expect(fanOut.subscriberCount == 1)
    }

    @Test func aSubscriberPastItsByteBoundEndsButALoneEventAlwaysFits() async {
        let event = Event(chat: Self.chat, id: 1, event: Self.run(.queued))
        let size = event.size
        let fanOut = WorkspaceEventFanOut(subscriberBytes: 2 * size)
        let exact = fanOut.subscribe(Self.chat)
        for id in 1...2 { fanOut.publish(Event(chat: Self.chat, id: Int64(id), event: Self.run(.queued))) }
        #expect(fanOut.heldBytes == 2 * size)
        fanOut.publish(Event(chat: Self.chat, id: 3, event: Self.run(.queued)))  // one byte is too many
        #expect(await take(exact, count: 3).map(\.id) == [1, 2])
        #expect(await exact.next() == nil)
        let small = WorkspaceEventFanOut(subscriberBytes: size - 1)
        let lone = small.subscribe(Self.chat)
        small.publish(Event(chat: Self.chat, id: 1, event: Self.run(.queued)))
        small.publish(Event(chat: Self.chat, id: 2, event: Self.run(.queued)))
        #expect(await take(lone, count: 2).map(\.id) == [1])
        #expect(await lone.next() == nil)
    }

    @Test func pastTheTotalBoundTheLargestHolderIsEndedAndFreed() async {
        let size = Event(chat: Self.chat, id: 1, event: Self.run(.queued)).size
        let fanOut = WorkspaceEventFanOut(totalLimit: 5 * size)
        let large = fanOut.subscribe(Self.chat)
        for id in 1...3 { fanOut.publish(Event(chat: Self.chat, id: Int64(id), event: Self.run(.queued))) }
        let small = fanOut.subscribe(Self.chat)
        fanOut.publish(Event(chat: Self.chat, id: 4, event: Self.run(.queued)))
        // 4 + 1 = 5 events' bytes: exactly the bound, nobody ends.
        #expect(fanOut.heldBytes == 5 * size)
        fanOut.publish(Event(chat: Self.other, id: 5, event: Self.run(.queued)))
        #expect(fanOut.heldBytes == 5 * size)
        // 5 + 2 > 5: the larger holder ends at once; its queue is freed.
        fanOut.publish(Event(chat: Self.chat, id: 6, event: Self.run(.queued)))
        #expect(fanOut.heldBytes == 2 * size)
        #expect(fanOut.peakHeldBytes == 5 * size)
        #expect(await large.next() == nil, "it reconnects and replays")
        #expect(await take(small, count: 2).map(\.id) == [4, 6])
        #expect(fanOut.heldBytes == 0)
    }

    @Test func aWaitingSubscriberGetsTheEventDirectlyAndCancellingEndsIt() async {
        let fanOut = WorkspaceEventFanOut()
        let subscription = fanOut.subscribe(Self.chat)
        // Waiting already or not yet, it gets the event once, and nothing stays held.
        let waiting = Task { await subscription.next()?.id }
        fanOut.publish(Event(chat: Self.chat, id: 1, event: Self.run(.queued)))
        #expect(await waiting.value == 1)
        #expect(fanOut.heldBytes == 0)
        let cancelled = Task { await subscription.next() }
        cancelled.cancel()
        #expect(await cancelled.value == nil)
        #expect(fanOut.subscriberCount == 0)
    }
}
