import Foundation
import SybilHTTP
import SybilNet
import SybilTesting
import Testing

/// Warm-up sends only a request the server serves: the open `/healthz` of a Sybil server, or
/// `/v1/models` with the key for a plain OpenAI-compatible one.
@MainActor
@Suite("Warm-up health check", .timeLimit(.minutes(2)))
struct WarmUpHealthCheckTests {
    let base = URL(string: "http://127.0.0.1:11434")!

    @Test func aPlainServerIsWokenWithItsModelListAndTheKey() async {
        let http = StubHTTPClient()
        http.respond(status: 200, body: #"{"object":"list","data":[]}"#)
        let check = WarmUpHealthCheck.models(key: "sk-1", headers: HTTPHeaders([("X-Org", "o")]))
        let manager = WarmUpManager(http: http, baseURL: base, clock: ManualClock(), check: check)
        manager.trigger(.enteredChat)
        #expect(await ConditionWait.until { manager.state != .warming })
        #expect(manager.state == .warm)
        #expect(http.requests.map(\.url.absoluteString) == ["http://127.0.0.1:11434/v1/models"])
        #expect(http.requests.first?.headers["Authorization"] == "Bearer sk-1")
        #expect(http.requests.first?.headers["X-Org"] == "o")
    }

    @Test func withoutAKeyTheModelListCarriesNone() {
        #expect(WarmUpHealthCheck.models(key: nil).headers["Authorization"] == nil)
        #expect(WarmUpHealthCheck.healthz == WarmUpHealthCheck(path: "healthz"))
    }
}
