import Foundation
import SybilClient
import Testing

@Suite("Agent room API base URL", .timeLimit(.minutes(2)))
struct AgentRoomAPIBaseTests {
    private func base(_ text: String) throws -> AgentAPIBase { try AgentAPIBase(string: text) }

    @Test func routesJoinTheBasePathWithExactlyOneSlash() throws {
        let route = ["agent", "messages"]
        #expect(
            try base("http://127.0.0.1:8799/api").url(route).absoluteString
                == "http://127.0.0.1:8799/api/agent/messages")
        #expect(
            try base("http://127.0.0.1:8799/api/").url(route).absoluteString
                == "http://127.0.0.1:8799/api/agent/messages")
        #expect(try base("http://127.0.0.1:8799").url(route).absoluteString == "http://127.0.0.1:8799/agent/messages")
        #expect(try base("http://127.0.0.1:8799/").url(route).absoluteString == "http://127.0.0.1:8799/agent/messages")
        #expect(try base("https://h/api//").url(route).absoluteString == "https://h/api/agent/messages")
        #expect(try base("https://h/v2/api").url(route).absoluteString == "https://h/v2/api/agent/messages")
        #expect(try base("http://[::1]:8799/api").url(route).absoluteString == "http://[::1]:8799/api/agent/messages")
        #expect(try base("https://h/a%20b/").url(route).absoluteString == "https://h/a%20b/agent/messages")
        #expect(try base("https://H.Example:443/API").url(route).host() == "H.Example")
    }

    @Test func aBaseWithAQueryFragmentCredentialsOrAnotherSchemeIsRefusedAtInit() {
        #expect(throws: AgentAPIBase.Problem.hasQuery("https://h/api?x=1")) { try base("https://h/api?x=1") }
        #expect(throws: AgentAPIBase.Problem.hasQuery("https://h/api?")) { try base("https://h/api?") }
        #expect(throws: AgentAPIBase.Problem.hasFragment("https://h/api#top")) { try base("https://h/api#top") }
        #expect(throws: AgentAPIBase.Problem.hasCredentials) { try base("https://me:secret@h/api") }
        #expect(throws: AgentAPIBase.Problem.unsupportedScheme("ws://h/api")) { try base("ws://h/api") }
        #expect(throws: AgentAPIBase.Problem.unsupportedScheme("/api")) { try base("/api") }
        #expect(throws: AgentAPIBase.Problem.missingHost("http:///api")) { try base("http:///api") }
    }

    @Test func theCredentialsProblemNeverQuotesTheURL() {
        let text = AgentAPIBase.Problem.hasCredentials.description
        #expect(!text.contains("secret"))
        #expect(text.contains("remove them"))
        #expect(AgentAPIBase.Problem.hasQuery("https://h/api?x=1").description.contains("\"https://h/api?x=1\""))
    }

    @Test func segmentsAndQueryItemsArePercentEncoded() throws {
        let api = try base("https://h/api")
        #expect(
            api.url(["agent", "uploads", "a b/c?d#e%f+g", "original"]).absoluteString
                == "https://h/api/agent/uploads/a%20b%2Fc%3Fd%23e%25f%2Bg/original")
        #expect(
            api.url(["agent", "messages"], query: [("after", "c+1&2=3"), ("limit", "50")]).absoluteString
                == "https://h/api/agent/messages?after=c%2B1%262%3D3&limit=50")
        #expect(api.url(["agent", "uploads", "ü"]).absoluteString == "https://h/api/agent/uploads/%C3%BC")
        #expect(api.url(["agent", "uploads", "A-z_0.9~"]).absoluteString == "https://h/api/agent/uploads/A-z_0.9~")
    }

    @Test func theStreamURLIsWsForHttpAndWssForHttpsWithThePortKept() throws {
        #expect(
            try base("http://127.0.0.1:8799/api/").webSocketURL(["agent", "stream"], query: [("after", "c-000000042")])
                .absoluteString == "ws://127.0.0.1:8799/api/agent/stream?after=c-000000042")
        #expect(try base("HTTPS://h").webSocketURL(["agent", "stream"]).absoluteString == "wss://h/agent/stream")
        #expect(
            try base("https://h:8443/api").webSocketURL(["agent", "stream"]).absoluteString
                == "wss://h:8443/api/agent/stream")
        #expect(
            try base("https://i❤️tacos.ws/api").webSocketURL(["agent", "stream"]).absoluteString
                == "wss://xn--itacos-i50d.ws/api/agent/stream")
    }
}
