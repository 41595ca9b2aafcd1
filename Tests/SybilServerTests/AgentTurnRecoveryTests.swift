import Foundation
import SybilCore
import SybilHTTP
import SybilNet
import SybilTesting
import SybilWire
import Testing

@testable import SybilServer

/// A turn the agent owes survives a stop: it is stored with the user's message, each step
/// with its progress, and the next server on the same data directory finishes it: exactly
/// one reply per user message, no step repeated.
@Suite("Reference server: Agent turns survive a restart", .timeLimit(.minutes(2)))
struct AgentTurnRecoveryTests {
    private static let token = "live"

    private static func temporaryDirectory() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("sybil-turns-\(UUID().uuidString)")
    }

    private static func options(_ directory: URL, pace: Duration) -> SybilServerOptions {
        var options = SybilServerOptions(token: token)
        options.pace = pace
        options.storage = .directory(directory.path)
        return options
    }

    private static func harness(_ directory: URL, pace: Duration) throws -> AppHarness {
        try AppHarness {
            $0.pace = pace
            $0.storage = .directory(directory.path)
        }
    }

    private func send(_ server: ReferenceServer, _ method: String, _ path: String, _ body: String? = nil)
        async throws -> (Int, JSONValue)
    {
        var headers = HTTPHeaders([("Authorization", "Bearer \(Self.token)")])
        if body != nil { headers.set("Content-Type", "application/json") }
        let request = HTTPRequest(
            method: method, url: APIEndpoint.url(base: server.baseURL, path: path), headers: headers,
            body: body.map { Array($0.utf8) } ?? [], timeout: .seconds(30))
        let response = try await DefaultHTTPClient.make().send(request)
        return (response.head.status, try JSONReader().parse(await response.collect()))
    }

    @Test func aTurnStoppedBeforeItsReplyIsAnsweredOnceByTheNextServer() async throws {
        let directory = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        // The first server's clock never moves: its agent waits before its first step.
        let stoppedClock = ManualClock()
        let first = try ReferenceServer(
            options: Self.options(directory, pace: .seconds(1)),
            time: ServerTime(clock: stoppedClock) { AppHarness.epochBase })
        let (status, answer) = try await send(
            first, "POST", "agent/messages", #"{"requestId": "req-1", "text": "Are you there?", "createdAt": 1}"#)
        #expect(status == 202)
        let receipt = try AgentRoomReceipt.decode(answer, at: .root)
        #expect(await stoppedClock.waitForSleepers(count: 1))
        let before = try AgentRoomPage.decode(try await send(first, "GET", "agent/messages").1, at: .root)
        #expect(before.messages.map(\.role) == [.user])
        await first.shutdown()
        #expect(stoppedClock.sleeperCount == 0, "the stop cancelled the agent's wait")
        stoppedClock.advance(by: .seconds(60))  // a stopped agent does nothing, whatever the time
        let store = try AgentRoomStore(.directory(directory.path))
        #expect(try await store.pendingTurnCount() == 1)
        #expect(try await store.messages(after: nil, before: nil, limit: 10).rows.count == 1)

        // The next server finishes the turn; its stream is the signal.
        let second = try ReferenceServer(
            options: Self.options(directory, pace: .zero),
            time: ServerTime(clock: ManualClock()) { AppHarness.epochBase })
        var headers = HTTPHeaders()
        headers.set("Authorization", "Bearer \(Self.token)")
        let socket = try await SocketWebSocket.connect(
            to: try #require(URL(string: "ws://127.0.0.1:\(second.http.port)/agent/stream?after=\(receipt.cursor)")),
            options: WebSocketOptions(headers: headers), random: SeededRandomSource(seed: 3), clock: ManualClock())
        var reply: AgentRoomMessage?
        for try await frame in socket.incoming {
            guard case .text(let text) = frame else { break }
            if case .message(let message) = try AgentStreamEvent.decode(frame: text), message.role == .assistant {
                reply = message
                break
            }
        }
        socket.close(code: 1000, reason: "")
        #expect(reply?.text == ScriptedAgent(seed: 1).reply(to: "Are you there?").text)
        let after = try AgentRoomPage.decode(try await send(second, "GET", "agent/messages").1, at: .root)
        #expect(after.messages.map(\.role) == [.user, .tool, .assistant])
        await second.shutdown()
        #expect(try await store.pendingTurnCount() == 0)

        // A third start finds nothing to do: still exactly one reply.
        let third = try ReferenceServer(
            options: Self.options(directory, pace: .zero),
            time: ServerTime(clock: ManualClock()) { AppHarness.epochBase })
        await third.quiescent()
        let last = try AgentRoomPage.decode(try await send(third, "GET", "agent/messages").1, at: .root)
        #expect(last.messages.map(\.messageId) == after.messages.map(\.messageId))
        await third.shutdown()
    }

    @Test func aTurnStoppedAfterItsToolStepIsFinishedWithoutRepeatingIt() async throws {
        let directory = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let first = try Self.harness(directory, pace: .seconds(1))
        let probe = try await first.openStream()
        var frames = probe.frames.makeAsyncIterator()
        _ = await first.submit("req-1", text: "Check the logs")
        // The stream's ping loop and the agent's first pause both sleep on the clock.
        #expect(await first.clock.waitForSleepers(count: 2))
        first.clock.advance(by: .seconds(1))
        let (tool, _) = await probe.next(&frames) { frame -> AgentRoomMessage? in
            if case .event(.message(let message)) = frame, message.role == .tool { return message }
            return nil
        }
        #expect(tool != nil)
        await probe.close()
        await first.shutdown()

        let second = try Self.harness(directory, pace: .zero)
        await second.waitUntilAgentIdle()
        let page = try await second.history()
        #expect(page.messages.map(\.role) == [.user, .tool, .assistant])
        #expect(page.messages[1] == tool)
        #expect(page.messages[2].text == ScriptedAgent(seed: 1).reply(to: "Check the logs").text)
        await second.shutdown()
    }

    @Test func everyPendingTurnIsAnsweredInOrderExactlyOnce() async throws {
        let directory = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let first = try Self.harness(directory, pace: .seconds(1))
        let prompts = ["one", "two", "three"]
        for (index, prompt) in prompts.enumerated() { _ = await first.submit("req-\(index)", text: prompt) }
        #expect(await first.clock.waitForSleepers(count: 1))
        await first.shutdown()
        #expect(first.clock.sleeperCount == 0)

        let second = try Self.harness(directory, pace: .zero)
        // A new message racing the recovery is answered once too.
        _ = await second.submit("req-new", text: "four")
        await second.waitUntilAgentIdle()
        let messages = try await second.history().messages
        let users = messages.filter { $0.role == .user }.map(\.text)
        let replies = messages.filter { $0.role == .assistant }.map(\.text)
        #expect(users == prompts + ["four"])
        #expect(replies == (prompts + ["four"]).map { ScriptedAgent(seed: 1).reply(to: $0).text })
        #expect(messages.filter { $0.role == .tool }.count == 4)
        await second.shutdown()
    }

    @Test func shutdownCancelsAndAwaitsTheAgentsWork() async throws {
        let harness = try AppHarness { $0.pace = .seconds(5) }
        _ = await harness.submit("req-1")
        #expect(await harness.clock.waitForSleepers(count: 1))
        await harness.shutdown()
        #expect(harness.clock.sleeperCount == 0)
        harness.clock.advance(by: .seconds(60))
        #expect(try await harness.history().messages.map(\.role) == [.user])
        await harness.waitUntilAgentIdle()  // a stopped agent counts as idle: no hang
    }
}
