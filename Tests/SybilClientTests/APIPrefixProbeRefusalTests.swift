#if canImport(Glibc)
    import Foundation
    import Glibc
    import SybilClient
    import SybilNet
    import SybilTesting
    import Testing

    /// `APIPrefixProbe` reads a 400's body, to tell LiteLLM's refusal of a key it cannot look up
    /// from other 400s, only for ``APIPrefixProbe/refusalBodyTimeout`` on its clock.
    @Suite("the API prefix probe and a 400's body", .timeLimit(.minutes(1)))
    struct APIPrefixProbeRefusalTests {
        /// A server answering both probes with a 400 whose 3,000-byte body comes a byte at a
        /// time (a minute at the trickle's pace): the probe gives each body up when its clock
        /// says the time is over, and says what the statuses were.
        @Test func aTricklingRefusalBodyDoesNotHoldTheProbe() async throws {
            let server = try LoopbackHTTPServer { _, connection in
                connection.write(
                    "HTTP/1.1 400 Bad Request\r\nContent-Type: application/json\r\nContent-Length: 3000\r\n\r\n")
                var sent = 0
                while sent < 3000, connection.write(" ") {
                    sent += 1
                    usleep(20_000)  // the peer's trickle, not a wait of the test
                }
            }
            let clock = ManualClock()
            let probe = APIPrefixProbe(http: DefaultHTTPClient.make(), key: "sk-x", clock: AnyClock(clock))
            let base = try #require(URL(string: server.url.absoluteString + "/gw"))
            let result = Task { await probe.probe(base: base) }
            for _ in 0..<2 {
                #expect(await clock.waitForSleepers(count: 1))
                clock.advance(by: APIPrefixProbe.refusalBodyTimeout)
            }
            guard case .failure(let error) = await result.value else {
                Issue.record("a 400 without a readable body was taken for a refused key")
                return
            }
            #expect(error.answers.map(\.summary) == ["HTTP 400", "HTTP 400"])
        }
    }
#endif
