import Foundation
import SybilHTTP
import SybilServer
import SybilTesting
import Testing

/// The server answers while every thread of the shared cooperative pool is busy: its handlers
/// run on ``ServerExecutor``, not on the pool the embedding process keeps busy.
@Suite("Server executor", .timeLimit(.minutes(3)))
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
        let outcome = await blocking { () -> Outcome in
            // Everything below runs on a thread of its own: the pool is blocked meanwhile. In a
            // full parallel run (slower still under a sanitizer) other tests' jobs may hold pool
            // threads a while before every blocker gets one.
            let start = Date()
            while entered.value < width, Date().timeIntervalSince(start) < 90 {
                usleep(1000)
            }
            defer { for _ in 0..<width { release.signal() } }
            guard entered.value == width else { return .poolNeverFull(entered: entered.value) }
            guard let client = try? RawClient(port: server.port, receiveTimeout: 10) else {
                return .noConnection
            }
            client.send("GET /echo HTTP/1.1\r\nHost: x\r\n\r\n")
            guard let status = client.readResponse()?.status else { return .noAnswer }
            return .answered(status)
        }
        for blocker in blockers { await blocker.value }
        #expect(outcome == .answered(200), "pool width \(width)")
        await server.shutdown()
    }

    /// What the blocked-pool request came to.
    enum Outcome: Equatable {
        /// Not every pool thread was taken by a blocker within 90 s, so nothing was checked.
        case poolNeverFull(entered: Int)
        case noConnection
        /// Connected, but no response within the client's 10 s.
        case noAnswer
        case answered(Int)
    }
}
