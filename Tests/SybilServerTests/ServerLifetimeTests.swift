import Foundation
import SybilCore
import SybilHTTP
import SybilTesting
import SybilWire
import Testing

@testable import SybilServer

/// Nothing the server starts outlives its shutdown: an Agent turn, a workspace run, a chat
/// stream's producer and a forwarder in flight are cancelled and awaited, new work is
/// refused, and quiescence is a signal tests wait on.
@Suite("Reference server: structured lifetimes", .timeLimit(.minutes(2)))
struct ServerLifetimeTests {
    private static let streamBody =
        #"{"model": "sybil-scripted", "messages": [{"role": "user", "content": "Wie spät ist es?"}], "stream": true}"#

    private func sendToWorkspace(_ harness: AppHarness) async throws -> String {
        let receipt = try json(
            await harness.rpc(
                "run.codexChatSubmit",
                #"{\#(AppHarness.chatParams), "operationId": "op-1", "mutationId": "m1", "mode": "send", "text": "Go."}"#,
                callKey: "run.codexChatSubmit:op-1:m1"))["result"]["receipt"]
        return try #require(receipt["runId"].string)
    }

    private func runState(_ harness: AppHarness, _ runId: String) async throws -> WorkspaceStore.RunState? {
        try await harness.app.desktop.store.run(runId)?.state
    }

    @Test func shutdownEndsATurnARunAndAStreamInFlightAndRefusesNewStreams() async throws {
        let harness = try AppHarness { $0.pace = .seconds(1) }
        #expect(await harness.submit("req-1", text: "Are you there?").status == 202)
        let runId = try await sendToWorkspace(harness)
        #expect(await harness.send("POST", "/v1/chat/completions", json: Self.streamBody).status == 200)
        // The agent's turn, the run and the stream's producer each sleep one pace.
        #expect(await harness.clock.waitForSleepers(count: 3))
        let unfinished = await harness.app.shutdown(within: .seconds(5))
        #expect(unfinished.isEmpty)
        #expect(harness.clock.sleeperCount == 0, "every sleep was cancelled, the deadline's too")
        #expect(try await harness.app.agentRoom.store.pendingTurnCount() == 1, "the turn stays for the next start")
        #expect(try await runState(harness, runId) == .failed, "the run settled instead of staying running")
        let late = await harness.send("POST", "/v1/chat/completions", json: Self.streamBody)
        #expect(late.status == 503)
        #expect(try APIErrorBody.decode(json(late), at: .root).code == "shutting_down")
    }

    @Test func shutdownEndsAForwarderReadingASilentUpstream() async throws {
        let upstream = OpenUpstream()
        let clock = ManualClock()
        var options = SybilServerOptions(token: AppHarness.token)
        options.upstream = URL(string: "http://upstream.invalid")
        let app = try SybilServerApp(
            options: options, time: ServerTime(clock: clock) { 1_800_000_000_000 }, upstream: upstream,
            random: SeededRandomSource(seed: 4))
        let response = await app.handle(
            HTTPServerRequest(
                method: "POST", target: "/v1/chat/completions",
                headers: [("Authorization", "Bearer \(AppHarness.token)"), ("Content-Type", "application/json")],
                body: Array(Self.streamBody.utf8)))
        #expect(response.status == 200)
        // The forwarder's idle watchdog sleeps while it waits for upstream bytes.
        #expect(await clock.waitForSleepers(count: 1))
        #expect(await app.shutdown(within: .seconds(5)) == [])
        #expect(upstream.cancelled, "the upstream body was dropped, not read on")
        #expect(clock.sleeperCount == 0)
    }

    @Test func quiescenceWaitsForARunToSettle() async throws {
        let pace = Duration.seconds(1)
        let harness = try AppHarness { $0.pace = pace }
        let runId = try await sendToWorkspace(harness)
        #expect(await harness.clock.waitForSleepers(count: 1))
        #expect(try await runState(harness, runId) == .running)
        let driver = Task { await harness.clock.drive(step: pace) }
        await harness.app.quiescent()
        // Read before the driver stops: quiescence, not the driver, decided when to look.
        let state = try await runState(harness, runId)
        driver.cancel()
        #expect(state == .finished)
        await harness.app.shutdown()
    }
}

/// An upstream that answers a stream head and then stays silent; records when its body is
/// dropped.
private final class OpenUpstream: HTTPClient {
    private let feeds = Locked<[AsyncThrowingStream<[UInt8], any Error>.Continuation]>([])
    private let dropped = Locked(false)

    var cancelled: Bool { dropped.withLock { $0 } }

    func send(_ request: HTTPRequest) async throws -> HTTPStreamingResponse {
        let (body, feed) = AsyncThrowingStream<[UInt8], any Error>.makeStream()
        feed.onTermination = { [weak self] termination in
            if case .cancelled = termination { self?.dropped.withLock { $0 = true } }
        }
        feeds.withLock { $0.append(feed) }
        return HTTPStreamingResponse(
            head: HTTPResponseHead(status: 200, headers: HTTPHeaders([("Content-Type", "text/event-stream")])),
            body: body)
    }
}
