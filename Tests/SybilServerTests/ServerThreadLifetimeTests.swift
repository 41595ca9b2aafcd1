import Foundation
import SybilCore
import SybilHTTP
import SybilTesting
import Testing

@testable import SybilServer

/// A reference server's threads start and end with it: the transport's handlers and the app's
/// background work (the Agent's turns) share one executor that its shutdown stops after that
/// work ended, so no thread of the server is left behind.
@Suite("Server: executor threads end with the server", .timeLimit(.minutes(2)))
struct ServerThreadLifetimeTests {
    @Test func shuttingDownMidReplyEndsTheAgentsWorkAndEveryExecutorThread() async throws {
        let clock = ManualClock()
        let pace = Duration.seconds(1)
        var options = SybilServerOptions(token: AppHarness.token)
        options.pace = pace
        // Each of the agent's sleeps notes the thread it was called on.
        var time = ServerTime(clock: clock) { AppHarness.epochBase }
        let sleepThreads = Locked<[String]>([])
        let sleep = time.sleep
        time.sleep = { duration in
            sleepThreads.withLock { $0.append(currentThreadName()) }
            try await sleep(duration)
        }
        let server = try ReferenceServer(options: options, time: time)
        let threads = server.executor.threadIDs
        #expect(server.statistics.executorThreads == 2)
        #if os(Linux)
            #expect(threads.count == 2)
            #expect(threads.allSatisfy { Self.name(ofThread: $0)?.hasPrefix("sybil-server-") == true })
        #endif

        let client = try RawClient(port: server.http.port)
        let body = #"{"requestId": "req-1", "text": "Are you there?", "createdAt": 1}"#
        client.send(
            "POST /agent/messages HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(AppHarness.token)\r\n"
                + "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)")
        #expect(await blocking { client.readResponse()?.status } == 202)
        // The agent stores its tool step after one pace, then sleeps another before the reply:
        // shut down in the middle of that reply.
        #expect(await clock.waitForSleepers(count: 1))
        clock.advance(by: pace)
        #expect(await clock.waitForSleeps(after: 1))
        #expect(clock.sleeperCount == 1)
        #expect(server.statistics.runningTasks >= 1, "the agent's turn loop runs")
        // The agent's work runs on the server's threads, not the shared pool.
        let agentThreads = sleepThreads.withLock { $0 }
        #expect(agentThreads.count == 2)
        #expect(agentThreads.allSatisfy { $0.hasPrefix("sybil-server-") }, "\(agentThreads)")

        let unfinished = await server.shutdown()

        #expect(unfinished.isEmpty)
        #expect(server.statistics.executorThreads == 0)
        #expect(server.statistics.runningTasks == 0)
        #expect(server.executor.runningThreads == 0)
        #expect(try await server.app.agentRoom.store.pendingTurnCount() == 1, "the reply waits for the next start")
        // Joined by the shutdown: none of the server's threads is left in the process.
        #if os(Linux)
            for thread in threads {
                let name = Self.name(ofThread: thread)
                #expect(name == nil || name?.hasPrefix("sybil-server-") == false, "thread \(thread): \(name ?? "")")
            }
        #endif
    }

    /// The name of this process's thread `id` (`/proc/self/task/<id>/comm`), `nil` when there
    /// is no such thread.
    private static func name(ofThread id: Int) -> String? {
        guard let text = try? String(contentsOfFile: "/proc/self/task/\(id)/comm", encoding: .utf8) else {
            return nil
        }
        return text.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}

/// The name of the thread running the caller (read from a synchronous function).
private func currentThreadName() -> String {
    Thread.current.name ?? ""
}
