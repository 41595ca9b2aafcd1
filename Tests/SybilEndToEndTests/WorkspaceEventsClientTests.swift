import Foundation
import SybilClient
import SybilCore
import SybilNet
import SybilTesting
import SybilWire
import Testing

/// The events follower against a peer that misbehaves.
@Suite("Workspace events follower", .timeLimit(.minutes(1)))
struct WorkspaceEventsClientTests {
    @Test func aStreamSilentFor45SecondsCountsAsDroppedAndIsReconnected() async throws {
        let peer = try LoopbackHTTPServer { _, connection in
            connection.write(
                "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\n\r\n"
                    + "id: 9.1\nevent: session\ndata: {\"sessionId\": \"sess-42\", \"updatedAt\": 5}\n\n")
            // Then nothing, not even a heartbeat, until the client gives up on the connection.
            while !connection.read().isEmpty {}
        }
        let clock = ManualClock()
        let follower = WorkspaceEventsClient(
            chat: seededChat, baseURL: URL(string: "http://127.0.0.1:\(peer.port)")!, http: URLSessionHTTPClient(),
            tokens: endToEndTokens(), clock: clock, random: SeededRandomSource(seed: 1),
            policy: ReconnectPolicy(initialDelay: .seconds(1), jitter: 0))
        var updates = follower.updates().makeAsyncIterator()
        #expect(await updates.next() == .connected)
        #expect(await updates.next() == .event(.session(sessionId: "sess-42", updatedAt: 5), id: "9.1"))
        // The watchdog sleeps until 45 s after the last bytes.
        #expect(await clock.waitForSleepers(count: 1))
        clock.advance(by: .seconds(45))
        guard case .disconnected(let reason, let retryIn)? = await updates.next() else {
            Issue.record("a silent stream must count as dropped")
            return
        }
        #expect(reason.contains("no data for 45"))
        #expect(retryIn == .seconds(1))
    }
}
