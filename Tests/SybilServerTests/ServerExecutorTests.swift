import Foundation
import SybilServer
import SybilTesting
import Testing

/// The server answers while every thread of the shared cooperative pool is busy: its handlers
/// run on ``ServerExecutor``, not on the pool the embedding process keeps busy.
@Suite("Server executor", .timeLimit(.minutes(2)))
struct ServerExecutorTests {
    @Test func aRequestIsAnsweredWhileEveryPoolThreadIsBlocked() async throws {
        let clock = ManualClock()
        let configuration = HTTPServer.Configuration(
            maximumConnections: 8, idleTimeout: .seconds(60), requestTimeout: .seconds(10),
            uptime: { clock.now.offset })
        let server = try HTTPServer(configuration: configuration, handler: TransportTestHandler())
        let width = ProcessInfo.processInfo.activeProcessorCount
        let release = DispatchSemaphore(value: 0)
        let entered = Counter()
        // Occupy every pool thread with a job that blocks until released.
        let blockers = (0..<width).map { _ in
            Task.detached {
                entered.increment()
                release.wait()
            }
        }
        let status = await blocking { () -> Int? in
            // Everything below runs on a thread of its own: the pool is blocked meanwhile.
            let start = Date()
            while entered.value < width, Date().timeIntervalSince(start) < 30 {
                usleep(1000)
            }
            defer { for _ in 0..<width { release.signal() } }
            guard entered.value == width else { return nil }
            guard let client = try? RawClient(port: server.port, receiveTimeout: 10) else { return nil }
            client.send("GET /echo HTTP/1.1\r\nHost: x\r\n\r\n")
            return client.readResponse()?.status
        }
        for blocker in blockers { await blocker.value }
        #expect(status == 200)
        await server.shutdown()
    }
}
