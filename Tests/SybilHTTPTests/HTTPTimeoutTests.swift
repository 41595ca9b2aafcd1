import Foundation
import SybilHTTP
import Testing

@Suite("HTTP timeouts")
struct HTTPTimeoutTests {
    @Test func aTimeoutNamesItsWait() {
        #expect(
            HTTPTimeout(after: .seconds(30)).description == "the server sent nothing for 30 s, the request's timeout")
        #expect(HTTPTimeout(after: .milliseconds(300)).description.contains("0.3 seconds"))
    }

    @Test func onlyATimeoutMatches() {
        #expect(HTTPTimeout.matches(HTTPTimeout(after: .seconds(1))))
        #expect(HTTPTimeout.matches(URLError(.timedOut)), "URLSession's timeout")
        #expect(!HTTPTimeout.matches(URLError(.networkConnectionLost)))
        #expect(!HTTPTimeout.matches(HTTPTransportError("the server closed the connection before a response")))
        #expect(!HTTPTimeout.matches(HTTPRequestNotSent("connection refused")))
        #expect(!HTTPTimeout.matches(CancellationError()))
    }
}
