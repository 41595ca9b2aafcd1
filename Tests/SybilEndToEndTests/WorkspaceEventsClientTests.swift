import Foundation
import SybilClient
import SybilCore
import SybilHTTP
import SybilNet
import SybilTesting
import SybilWire
import Testing

/// The events follower against a peer that misbehaves.
@Suite("Workspace events follower", .timeLimit(.minutes(2)))
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
            chat: seededChat, baseURL: URL(string: "http://127.0.0.1:\(peer.port)")!, http: DefaultHTTPClient.make(),
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

    @Test func deltasAreReportedAsTheWholeOverlaysTheyMakeOnlyFromTheirBase() async throws {
        func row(_ text: String) -> TimelineBlock {
            TimelineBlock(
                type: .agentReply, id: "l-r", origin: .live, sourceOrder: [1], timestamp: 1, text: text, runId: "run-1")
        }
        let overlays = (0...4).map {
            LiveOverlay(settlementEpoch: 2, revision: Int64($0), blocks: $0 == 0 ? [] : [row("\($0)")])
        }
        func delta(_ from: Int, _ to: Int) -> LiveOverlayDelta {
            LiveOverlayDelta(from: overlays[from], to: overlays[to])!
        }
        let missed = LiveOverlayDelta(
            settlementEpoch: 2, revision: 8, baseRevision: 7, blockIds: ["l-r"], blocks: [row("8")])
        let sent: [WorkspaceEvent] = [
            .overlay(overlays[1]), .overlayDelta(delta(1, 2)), .overlayDelta(delta(1, 2)), .overlayDelta(delta(2, 3)),
            .overlayDelta(missed), .overlayDelta(delta(3, 4)),
        ]
        let text = sent.enumerated().map {
            "id: 9.\($0.offset)\nevent: \($0.element.name)\ndata: \($0.element.dataText)\n\n"
        }
        .joined()
        let peer = try LoopbackHTTPServer { _, connection in
            connection.write(
                "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\n\r\n" + text)
            while !connection.read().isEmpty {}
        }
        let follower = WorkspaceEventsClient(
            chat: seededChat, baseURL: URL(string: "http://127.0.0.1:\(peer.port)")!, http: DefaultHTTPClient.make(),
            tokens: endToEndTokens(), clock: ManualClock(), random: SeededRandomSource(seed: 1))
        var updates = follower.updates().makeAsyncIterator()
        #expect(await updates.next() == .connected)
        var received: [WorkspaceEvent] = []
        for _ in sent {
            guard case .event(let event, _)? = await updates.next() else { break }
            received.append(event)
        }
        #expect(
            received == [
                .overlay(overlays[1]), .overlay(overlays[2]),
                .overlayDelta(delta(1, 2)),  // old news: passed on, and revision 2 stays the base
                .overlay(overlays[3]),
                .overlayDelta(missed),  // a change was missed: passed on for the consumer to reload
                .overlayDelta(delta(3, 4)),  // no base any more until a whole overlay
            ])
    }
}
