import Foundation
import SybilCore

/// Which server a command or the app talks to, chosen the way SPEC §10 orders it: flags
/// (`--api-url`, `--profile`), then the environment (`SYBIL_API_URL`, `SYBIL_PROFILE`), then
/// the configuration's `default_profile`, then `OPENAI_BASE_URL`/`OPENAI_API_KEY` as the
/// openai SDK reads them, and only when none of these is set the embedded reference server
/// (a scripted demo). `--token` and `SYBIL_TOKEN` give the key for whatever was chosen.
public struct ServerChoice: Sendable, Hashable {
    /// Where the key comes from.
    public enum KeySource: Sendable, Hashable {
        /// No key: no `Authorization` header (Ollama, llama.cpp and LiteLLM without a master
        /// key need none).
        case none
        /// Given directly (`--token`, `SYBIL_TOKEN`, `OPENAI_API_KEY`): the name of its origin.
        case given(String, origin: String)
        /// A stored key (`sybil keys set NAME`).
        case stored(name: String)
        /// An environment variable the profile names, and whether it is set.
        case environment(variable: String, value: String?)
    }

    /// The server's base URL; `nil` for the embedded reference server.
    public var baseURL: URL?
    /// Where the key comes from.
    public var key: KeySource
    /// The profile chosen, if any.
    public var profile: ClientProfile?
    /// How the server was chosen, for messages ("--api-url", "profile local", …).
    public var origin: String

    /// A choice.
    public init(baseURL: URL?, key: KeySource, profile: ClientProfile? = nil, origin: String) {
        self.baseURL = baseURL
        self.key = key
        self.profile = profile
        self.origin = origin
    }

    /// The embedded reference server.
    public static let embedded = ServerChoice(baseURL: nil, key: .none, origin: "the embedded demo server")

    /// Chooses. `apiURL`, `token` and `profile` are the flags (or `nil`); `configuration` is
    /// the parsed `config.toml` (or `nil` when there is none).
    public static func resolve(
        apiURL: String?, token: String?, profile: String?, environment: [String: String],
        configuration: ClientConfiguration?
    ) throws(ServerChoiceError) -> ServerChoice {
        func set(_ name: String) -> String? { environment[name].flatMap { $0.isEmpty ? nil : $0 } }
        let givenKey: KeySource? =
            if let token { .given(token, origin: "--token") } else {
                set("SYBIL_TOKEN").map { .given($0, origin: "SYBIL_TOKEN") }
            }
        func address(_ text: String, _ origin: String) throws(ServerChoiceError) -> URL {
            switch ServerAddress.parse(text) {
            case .success(let url): return url
            case .failure(let error): throw ServerChoiceError("\(origin) \(error)")
            }
        }
        func named(_ name: String, _ origin: String) throws(ServerChoiceError) -> ServerChoice {
            guard let chosen = configuration?.profile(named: name) else {
                let known = configuration?.profiles.map(\.name) ?? []
                throw ServerChoiceError(
                    "\(origin) names the profile '\(TerminalText.oneLine(name))', which does not exist"
                        + (known.isEmpty
                            ? "; add one with `sybil profile add`" : " (profiles: \(known.joined(separator: ", ")))"))
            }
            let key: KeySource =
                givenKey
                ?? (chosen.key.map { .stored(name: $0) }
                    ?? chosen.keyEnvironment.map { .environment(variable: $0, value: set($0)) } ?? KeySource.none)
            return ServerChoice(baseURL: chosen.baseURL, key: key, profile: chosen, origin: "profile \(name)")
        }
        if let apiURL {
            return ServerChoice(baseURL: try address(apiURL, "--api-url"), key: givenKey ?? .none, origin: "--api-url")
        }
        if let profile { return try named(profile, "--profile") }
        if let url = set("SYBIL_API_URL") {
            return ServerChoice(
                baseURL: try address(url, "SYBIL_API_URL"), key: givenKey ?? .none, origin: "SYBIL_API_URL")
        }
        if let name = set("SYBIL_PROFILE") { return try named(name, "SYBIL_PROFILE") }
        if let name = configuration?.defaultProfile { return try named(name, "default_profile in config.toml") }
        let openAIKey = set("OPENAI_API_KEY")
        if let url = set("OPENAI_BASE_URL") {
            return ServerChoice(
                baseURL: try address(url, "OPENAI_BASE_URL"),
                key: givenKey ?? openAIKey.map { .given($0, origin: "OPENAI_API_KEY") } ?? .none,
                origin: "OPENAI_BASE_URL")
        }
        if let openAIKey {
            // As the openai SDK does: a key alone means OpenAI's own API.
            return ServerChoice(
                baseURL: URL(string: "https://api.openai.com")!,
                key: givenKey ?? .given(openAIKey, origin: "OPENAI_API_KEY"),
                origin: "OPENAI_API_KEY")
        }
        // The embedded server makes its own token: a given one is not used.
        return .embedded
    }
}

/// Why no server could be chosen: one sentence naming the flag, variable or profile.
public struct ServerChoiceError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The sentence.
    public var description: String

    /// An error saying `description`.
    public init(_ description: String) {
        self.description = description
    }
}
