import Foundation
import SybilClient
import SybilNet
import Testing

/// `api_prefix`: where a profile's OpenAI routes are under its base URL. A profile written
/// before it existed loads as before (a trailing `/v1` dropped, routes under `/v1`).
@Suite("APIPrefix and a profile's api_prefix")
struct APIPrefixTests {
    @Test func prefixesAreReadAndRoutesBuilt() throws {
        #expect(APIPrefix(parsing: "/") == .root)
        #expect(APIPrefix(parsing: "/v1/") == .v1)
        #expect(APIPrefix(parsing: "/openai/v1")?.path == "openai/v1")
        for bad in ["", "v1", "//", "/a//b", "/..", "/a b", "/a?b", "/%41"] {
            #expect(APIPrefix(parsing: bad) == nil, "\(bad)")
        }
        let base = URL(string: "https://generativelanguage.googleapis.com/v1beta/openai")!
        #expect(
            APIPrefix.root.url(base: base, route: "chat/completions").absoluteString
                == "https://generativelanguage.googleapis.com/v1beta/openai/chat/completions")
        #expect(APIPrefix.v1.url(base: base, route: "models").absoluteString.hasSuffix("/v1beta/openai/v1/models"))
    }

    @Test func anOldProfileLoadsAsBefore() throws {
        let old = try ClientConfiguration(
            parsing: "[profiles.a]\nbase_url = \"https://h/v1/\"\n[profiles.b]\nbase_url = \"https://h/x\"\n")
        #expect(old.profiles.map(\.baseURL.absoluteString) == ["https://h", "https://h/x"])
        #expect(old.profiles.map(\.apiPrefix) == [nil, nil])
        #expect(old.profiles.map(\.routePrefix) == [.v1, .v1])
        #expect(!old.formatted().contains("api_prefix"))
    }

    @Test func aProfilesPrefixKeepsItsBaseURLsPath() throws {
        let configuration = try ClientConfiguration(
            parsing: """
                [profiles.gemini]
                base_url = "https://generativelanguage.googleapis.com/v1beta/openai/"
                api_prefix = "/"
                [profiles.sdk]
                base_url = "https://h/v1"
                api_prefix = "/"
                """)
        #expect(
            configuration.profiles.map(\.baseURL.absoluteString) == [
                "https://generativelanguage.googleapis.com/v1beta/openai", "https://h/v1",
            ])
        #expect(configuration.profiles.map(\.routePrefix) == [.root, .root])
        #expect(try ClientConfiguration(parsing: configuration.formatted()) == configuration)
        #expect(
            throws: ClientConfigurationError(
                "profiles.g.api_prefix must be a path such as / or /v1 (letters, digits, '.', '_', '~', '-'"
                    + " between slashes), got 'v1'")
        ) { try ClientConfiguration(parsing: "[profiles.g]\nbase_url = \"https://h\"\napi_prefix = \"v1\"\n") }
    }
}
