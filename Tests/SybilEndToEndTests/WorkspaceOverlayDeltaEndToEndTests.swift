import Foundation
import SybilClient
import SybilCore
import SybilHTTP
import SybilNet
import SybilServer
import SybilTesting
import SybilWire
import Testing

@testable import SybilServer

/// Overlay deltas over real sockets: the follower rebuilds, step by step, the same overlay
/// the desktop holds, while the wire carries a long message once.
@MainActor
@Suite("Workspace overlay deltas end to end", .timeLimit(.minutes(2)))
struct WorkspaceOverlayDeltaEndToEndTests {
    @Test func aLiveRunShowsTheDesktopsOverlayAtEveryStepFromDeltas() async throws {
        let clock = ManualClock()
        let server = try startServer(clock: clock)
        defer { Task { await server.shutdown(grace: .zero) } }
        let desktop = desktopClient(server)
        let wire = RecordingEventsHTTPClient()
        let follower = WorkspaceEventsClient(
            chat: emptyChat, baseURL: server.baseURL, http: wire, tokens: endToEndTokens(), clock: ContinuousClock(),
            random: SeededRandomSource(seed: 1))
        let log = EventLog(follower.updates())
        await log.waitFor { !$0.events.isEmpty }

        let text = "Review this diff. " + String(repeating: "+ let value = compute(input)\n", count: 7_000)
        let receipt = try await desktop.codexChatSubmit(
            WorkspaceSubmission(chat: emptyChat, operationId: "op-long", mutationId: "m-1", mode: .send, text: text))
        guard case .accepted = receipt.outcome else { throw ExpectationFailure("the send was not accepted") }
        // The run changes its overlay only when the clock moves: thinking, activity, then a token a step.
        let reply = ScriptedAgent(seed: SybilServerOptions(token: endToEndToken).seed).reply(to: text)
        let steps = 2 + reply.tokens.count
        #expect(reply.tokens.count >= 3)
        var epoch: Int64?
        for step in 0..<steps {
            let revision = Int64(step + 1)  // the user's row is revision 1
            await log.waitFor("overlay revision \(revision)") { [epoch] snapshot in
                snapshot.overlays.contains { $0.revision == revision && ($0.settlementEpoch == epoch || epoch == nil) }
            }
            let shown = try #require(await log.snapshot().overlays.last)
            epoch = shown.settlementEpoch
            #expect(shown.revision == revision)
            let live = try await desktop.codexChatLoad(emptyChat).liveOverlay
            #expect(shown == live, "step \(step): the follower shows the desktop's overlay")
            #expect(shown.blocks.first?.text == text)
            #expect(await clock.waitForSleepers(count: 2))  // the run's pace and the stream's heartbeat
            clock.advance(by: .milliseconds(40))
        }
        // The last token settles at once: its delta may give way to the new epoch's overlay.
        await log.waitFor("the settled session") { snapshot in
            snapshot.events.contains { if case .session = $0.event { true } else { false } }
        }
        let last = try #require(await log.snapshot().overlays.last { $0.settlementEpoch == epoch })
        #expect(last.revision == Int64(steps) || last.revision == Int64(steps + 1))
        #expect(last.revision == Int64(steps) || last.blocks.last?.text == reply.text)
        let types = wire.eventTypes
        #expect(types.filter { $0 == "overlay.delta" }.count >= steps, "\(types)")
        #expect(wire.bytes < text.utf8.count * 2, "the message crossed the wire once: \(wire.bytes) bytes")
        // The follower's consumers only ever see whole overlays.
        #expect(await log.snapshot().events.allSatisfy { if case .overlayDelta = $0.event { false } else { true } })
    }
}

extension EventLog.Snapshot {
    /// The whole overlays the follower reported, in order.
    var overlays: [LiveOverlay] {
        events.compactMap { if case .overlay(let overlay) = $0.event { overlay } else { nil } }
    }
}

/// Passes requests to a URLSession client and records what the events streams carried: the
/// event names and the bytes.
final class RecordingEventsHTTPClient: HTTPClient {
    private let inner = DefaultHTTPClient.make()
    private let state = Locked<(parser: EventStreamParser, types: [String], bytes: Int)>((EventStreamParser(), [], 0))

    var eventTypes: [String] { state.withLock { $0.types } }
    var bytes: Int { state.withLock { $0.bytes } }

    private func record(_ chunk: [UInt8]) {
        state.withLock { state in
            state.bytes += chunk.count
            do {
                state.types += try state.parser.feed(chunk).map(\.type)
            } catch {
                Issue.record("the events stream was refused: \(error)")
            }
        }
    }

    func send(_ request: HTTPRequest) async throws -> HTTPStreamingResponse {
        let response = try await inner.send(request)
        guard request.url.path.hasSuffix("/events") else { return response }
        let (body, continuation) = AsyncThrowingStream<[UInt8], any Error>.makeStream()
        let pump = Task {
            do {
                for try await chunk in response.body {
                    record(chunk)
                    continuation.yield(chunk)
                }
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
        continuation.onTermination = { _ in pump.cancel() }
        return HTTPStreamingResponse(head: response.head, body: body)
    }
}
