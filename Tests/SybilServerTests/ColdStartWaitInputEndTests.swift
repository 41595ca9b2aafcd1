import Foundation
import SybilCore
import SybilHTTP
import SybilServer
import SybilTesting
import Testing

/// The reference server's waiting requests (`--cold-start-wait`: `GET /healthz` and chat
/// completions wait until a simulated cold start is over) end their wait when the client's
/// input ends, over real sockets: a half-closed client gets the 503 `cold_start` with
/// `Retry-After` a non-waiting server gives, at once; the request of a client that closed stops
/// waiting at once. The clock never moves: only the end of the input ends the wait.
@Suite("Server: a waiting request and the end of its client's input", .timeLimit(.minutes(1)))
struct ColdStartWaitInputEndTests {
    private func start() throws -> (ReferenceServer, ManualClock) {
        let clock = ManualClock()
        var options = SybilServerOptions(token: AppHarness.token)
        options.pace = .zero
        options.coldStart = .seconds(30)
        options.coldStartWaits = true
        let server = try ReferenceServer(options: options, time: ServerTime(clock: clock) { AppHarness.epochBase })
        return (server, clock)
    }

    @Test func aHalfClosedClientIsToldTheServiceIsStartingAtOnce() async throws {
        let (server, clock) = try start()
        let client = try RawClient(port: server.http.port)
        client.send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(await clock.waitForSleepers(count: 1), "the request waits for the start")
        client.shutdownWrite()
        let answer = await blocking { client.readResponse() }
        #expect(answer?.status == 503)
        #expect(answer?.headers["retry-after"] == "30")
        #expect(answer.map { String(decoding: $0.body, as: UTF8.self).contains("cold_start") } == true)
        #expect(await blocking { client.readToEnd() }.isEmpty)
        #expect(await clock.waitForSleepers(exactly: 0))
        await server.shutdown()
    }

    @Test func theWaitOfAClientThatClosedEndsAtOnce() async throws {
        let (server, clock) = try start()
        let client = try RawClient(port: server.http.port)
        client.send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(await clock.waitForSleepers(count: 1))
        client.close()
        // The handler's wait on the server's clock ends with the client, not with the start.
        #expect(await clock.waitForSleepers(exactly: 0))
        await server.shutdown()
    }
}
