import Foundation
import SybilCore
import SybilTesting
import SybilWire
import Testing

@testable import SybilServer

/// The live stream sends messages in sequence order with none left out, whatever order the
/// tasks that stored them publish in.
@Suite("Agent room stream order", .timeLimit(.minutes(2)))
struct AgentStreamOrderTests {
    @Test func aMessagePublishedBeforeAnEarlierOneArrivesAfterItAndNothingIsSkipped() async throws {
        // The agent never answers (its clock never moves): only these two messages exist.
        let harness = try AppHarness { $0.pace = .seconds(60) }
        let room = harness.app.agentRoom
        func stored(_ id: String) async throws -> AgentRoomMessage {
            let submission = AgentRoomSubmission(requestId: id, text: "text of \(id)", createdAt: 1)
            return try await room.store.submit(submission, fingerprint: id, maxTotalBytes: 1 << 20).row.message
        }
        // One message before the stream opens: its replay shows the session is subscribed.
        let replayed = try await stored("req-0")
        let probe = try await harness.openStream()
        var frames = probe.frames.makeAsyncIterator()
        let (seen, _) = await probe.next(&frames) { frame -> String? in
            if case .event(.message(let message)) = frame { return message.messageId }
            return nil
        }
        #expect(seen == replayed.messageId)
        let first = try await stored("req-1")
        let second = try await stored("req-2")
        // Two tasks stored them at once and the second published first.
        room.events.publish(.message(second))
        room.events.publish(.message(first))
        room.events.publish(.activity(.idle, detail: "done"))
        let (_, live) = await probe.next(&frames) { frame -> Bool? in
            if case .event(.activity(.idle, "done")) = frame { return true }
            return nil
        }
        let messages = live.compactMap { frame -> String? in
            if case .event(.message(let message)) = frame { return message.messageId }
            return nil
        }
        #expect(messages == [first.messageId, second.messageId])
        await probe.close()
        await harness.shutdown()
    }

    @Test func anActivityFollowedAtOnceByAnotherInOneBurstIsLeftOutAndNoMessageIs() async throws {
        let harness = try AppHarness()
        let room = harness.app.agentRoom
        let probe = try await harness.openStream()
        var frames = probe.frames.makeAsyncIterator()
        // The session's ping loop sleeps once the (empty) replay is done and it listens live.
        #expect(await harness.clock.waitForSleepers(count: 1))
        // Stored without waking the agent: nothing but this test publishes.
        let submission = AgentRoomSubmission(requestId: "req-1", text: "text", createdAt: 1)
        let message = try await room.store.submit(submission, fingerprint: "req-1", maxTotalBytes: 1 << 20).row.message
        // One burst, taken whole by the stream whenever it looks.
        room.events.publish(contentsOf: [
            .activity(.working, detail: "a"), .activity(.working, detail: "b"), .message(message),
            .activity(.working, detail: "c"), .read(AgentReadState(readCursor: nil, unread: 0)),
            .activity(.working, detail: "d"), .activity(.idle, detail: "done"),
        ])
        let (_, live) = await probe.next(&frames) { frame -> Bool? in
            if case .event(.activity(.idle, "done")) = frame { return true }
            return nil
        }
        let events = live.compactMap { frame -> AgentStreamEvent? in
            if case .event(let event) = frame { return event }
            return nil
        }
        #expect(
            events == [
                .activity(.working, detail: "b"), .message(message), .activity(.working, detail: "c"),
                .read(AgentReadState(readCursor: nil, unread: 0)), .activity(.idle, detail: "done"),
            ])
        await probe.close()
        await harness.shutdown()
    }

    @Test func aTurnsEventsArriveInOrderWithEveryMessage() async throws {
        let harness = try AppHarness { $0.pace = .zero }
        let live = harness.app.agentRoom.events.subscribe()
        _ = await harness.submit("req-1", text: "first")
        await harness.waitUntilAgentIdle()
        var events: [AgentStreamEvent] = []
        while events.count < 6, let batch = await live.next() { events += batch }
        let reply = ScriptedAgent(seed: 1).reply(to: "first")
        let messages = events.compactMap { event -> AgentRoomMessage? in
            if case .message(let message) = event { return message }
            return nil
        }
        #expect(messages.map(\.role) == [.user, .tool, .assistant])
        #expect(messages.last?.text == reply.text)
        #expect(
            events == [
                .message(messages[0]), .activity(.working, detail: reply.thinking), .message(messages[1]),
                .activity(.working, detail: reply.activity), .message(messages[2]), .activity(.idle, detail: ""),
            ])
        await harness.shutdown()
    }
}
