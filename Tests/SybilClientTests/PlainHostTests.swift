import Foundation
import Testing

@testable import SybilClient

/// `plainPercentEncodedHost` names Agent outbox files (through ``AgentOutboxScope``): it must
/// give exactly what `percentEncodedHost` gives for every host, or a relaunch would look for
/// queued messages under another file name.
@Suite("A URL's host without IDNA work", .timeLimit(.minutes(1)))
struct PlainHostTests {
    static let urls = [
        "http://127.0.0.1:8799/api", "https://Example.COM/api", "http://localhost", "http://[::1]:8080/",
        "http://[fe80::1%25eth0]/", "https://xn--itacos-i50d.ws/", "https://XN--NW2A.xn--j6w193g/x",
        "https://i❤️tacos.ws/", "http://見.香港/", "http://h%41st/", "http://under_score.example/",
        "http://a..b/", "http://-lead.example/", "http:///api", "http://user@host.example:99/p",
        "http://ab--cd.example/", "http://%E2%9D%A4.example/", "http://h.example.", "file:///tmp/x",
        "http://\(String(repeating: "a", count: 253))/", "http://\(String(repeating: "a", count: 254))/",
        "http://\(String(repeating: "a", count: 3000))/",
    ]

    @Test(arguments: urls)
    func theAnswerIsPercentEncodedHostsAnswer(text: String) throws {
        let url = try #require(URL(string: text))
        let components = try #require(URLComponents(url: url, resolvingAgainstBaseURL: false))
        #expect(components.plainPercentEncodedHost == components.percentEncodedHost)
    }
}
