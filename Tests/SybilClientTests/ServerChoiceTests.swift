import Foundation
import SybilClient
import Testing

/// Which server a command talks to, in the documented order, and the key it sends.
@Suite("Server choice", .timeLimit(.minutes(2)))
struct ServerChoiceTests {
    private let configuration: ClientConfiguration = {
        try! ClientConfiguration(
            parsing: """
                default_profile = "local"
                [profiles.local]
                base_url = "http://127.0.0.1:11434/v1"
                [profiles.openai]
                base_url = "https://api.openai.com"
                key = "openai"
                [profiles.env]
                base_url = "http://h:4000"
                key_env = "LITELLM_KEY"
                """)
    }()

    private func choose(
        apiURL: String? = nil, token: String? = nil, profile: String? = nil, _ environment: [String: String] = [:],
        configuration: ClientConfiguration? = nil
    ) throws -> ServerChoice {
        try ServerChoice.resolve(
            apiURL: apiURL, token: token, profile: profile, environment: environment, configuration: configuration)
    }

    @Test func theOrderIsFlagsEnvironmentDefaultProfileOpenAIThenTheDemo() throws {
        let all = [
            "SYBIL_API_URL": "http://env:1", "SYBIL_PROFILE": "openai", "OPENAI_BASE_URL": "http://oai:2/v1",
            "OPENAI_API_KEY": "sk",
        ]
        #expect(
            try choose(apiURL: "http://flag:3/v1/", profile: "env", all, configuration: configuration).origin
                == "--api-url")
        #expect(try choose(profile: "env", all, configuration: configuration).origin == "profile env")
        #expect(try choose(all, configuration: configuration).origin == "SYBIL_API_URL")
        var rest = all
        rest["SYBIL_API_URL"] = nil
        #expect(try choose(rest, configuration: configuration).origin == "profile openai")
        rest["SYBIL_PROFILE"] = nil
        #expect(try choose(rest, configuration: configuration).origin == "profile local")
        let openAI = try choose(rest)
        #expect(openAI.origin == "OPENAI_BASE_URL")
        #expect(openAI.baseURL == URL(string: "http://oai:2"))
        #expect(openAI.key == .given("sk", origin: "OPENAI_API_KEY"))
        rest["OPENAI_BASE_URL"] = nil
        #expect(try choose(rest).baseURL == URL(string: "https://api.openai.com"), "a key alone means OpenAI")
        #expect(try choose([:]) == .embedded)
        #expect(try choose(["SYBIL_API_URL": ""]) == .embedded, "an empty variable is unset")
    }

    @Test func keysComeFromTheTokenTheStoreOrTheEnvironment() throws {
        #expect(try choose(configuration: configuration).key == .none, "a profile without a key sends none")
        #expect(try choose(profile: "openai", configuration: configuration).key == .stored(name: "openai"))
        #expect(
            try choose(profile: "env", ["LITELLM_KEY": "k"], configuration: configuration).key
                == .environment(variable: "LITELLM_KEY", value: "k"))
        #expect(
            try choose(token: "t", profile: "openai", configuration: configuration).key
                == .given("t", origin: "--token"))
        #expect(try choose(apiURL: "http://h", ["SYBIL_TOKEN": "s"]).key == .given("s", origin: "SYBIL_TOKEN"))
    }

    @Test func baseURLsWithOrWithoutV1AreTheSameServer() throws {
        for text in [
            "http://127.0.0.1:11434", "http://127.0.0.1:11434/", "http://127.0.0.1:11434/v1",
            "http://127.0.0.1:11434/v1/",
        ] {
            #expect(try choose(apiURL: text).baseURL == URL(string: "http://127.0.0.1:11434"), "\(text)")
        }
        #expect(try choose(apiURL: "https://h/api/v1").baseURL == URL(string: "https://h/api"))
    }

    @Test func mistakesAreNamed() {
        #expect(throws: ServerChoiceError.self) { try choose(apiURL: "ftp://x") }
        #expect(
            throws: ServerChoiceError(
                "--profile names the profile 'nope', which does not exist; add one with `sybil profile add`")
        ) {
            try choose(profile: "nope")
        }
        #expect(throws: ClientConfigurationError.self) {
            try ClientConfiguration(parsing: "[profiles.a]\nbase_url = \"http://h\"\nmodle = \"x\"\n")
        }
        #expect(throws: ClientConfigurationError("profiles.a: key and key_env exclude each other")) {
            try ClientConfiguration(parsing: "[profiles.a]\nbase_url = \"http://h\"\nkey = \"k\"\nkey_env = \"K\"\n")
        }
    }
}
