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
}
