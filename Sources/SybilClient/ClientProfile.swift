import Foundation
import SybilCore
import SybilNet

/// One server a person uses, as `[profiles.NAME]` in `config.toml` holds it: where it is, which
/// model to ask, and where its key is kept (the name of a stored key, or an environment
/// variable). Never the key itself.
public struct ClientProfile: Sendable, Hashable {
    /// The profile's name (1–64 of letters, digits, `.`, `_`, `-`).
    public var name: String
    /// The server's base URL, as normalized by ``ServerAddress/normalized(_:)``.
    public var baseURL: URL
    /// The model to ask; `nil` asks the server's first listed model.
    public var model: String?
    /// The name of a stored key (`sybil keys set NAME`).
    public var key: String?
    /// An environment variable holding the key.
    public var keyEnvironment: String?
    /// A command whose output is a fresh key (``KeyCommand``): run when the server refuses the
    /// key, and for the first key when neither `key` nor `key_env` is set.
    public var keyCommand: String?
    /// A system prompt sent first in every new conversation.
    public var system: String?
    /// Header fields sent with every request, in order.
    public var headers: [Header]
    /// The most bytes of UTF-8 a question sent with this profile may have (`max_input_bytes`,
    /// within ``inputBytesRange``); `nil` keeps the command's default (1 MiB for `sybil ask`).
    public var maxInputBytes: Int?
    /// How many seconds a chat request waits for the server's response head and through each
    /// silence of its reply (`timeout`, within ``ReplyWait/secondsRange``); `nil` keeps the
    /// default for where the server is (``ReplyWait/forServer(at:seconds:)``).
    public var timeoutSeconds: Int?
    /// Where under ``baseURL`` the OpenAI routes are (`api_prefix`); `nil`, as in every profile
    /// written before it existed, is ``APIPrefix/v1`` with a trailing `/v1` dropped from the
    /// base URL.
    public var apiPrefix: APIPrefix?

    /// The prefix the routes are under: ``apiPrefix``, else `/v1`.
    public var routePrefix: APIPrefix { apiPrefix ?? .v1 }

    /// What `max_input_bytes` may be: 1 byte to 16 MiB.
    public static let inputBytesRange = 1...(16 << 20)

    /// A header field a profile adds.
    public struct Header: Sendable, Hashable {
        /// The field name (a token).
        public var name: String
        /// Its value (no CR, LF or NUL).
        public var value: String

        /// A field.
        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    /// A profile.
    public init(
        name: String, baseURL: URL, model: String? = nil, key: String? = nil, keyEnvironment: String? = nil,
        system: String? = nil, headers: [Header] = [], keyCommand: String? = nil, maxInputBytes: Int? = nil,
        timeoutSeconds: Int? = nil, apiPrefix: APIPrefix? = nil
    ) {
        self.name = name
        self.baseURL = baseURL
        self.model = model
        self.key = key
        self.keyEnvironment = keyEnvironment
        self.keyCommand = keyCommand
        self.system = system
        self.headers = headers
        self.maxInputBytes = maxInputBytes
        self.timeoutSeconds = timeoutSeconds
        self.apiPrefix = apiPrefix
    }

    /// Whether `name` can name a profile: 1–64 of letters, digits, `.`, `_`, `-`.
    public static func isValidName(_ name: String) -> Bool {
        (1...64).contains(name.utf8.count)
            && name.utf8.allSatisfy { byte in
                (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                    || byte == 0x2E || byte == 0x5F || byte == 0x2D
            }
    }
}

/// Base URLs as people write them: `http://127.0.0.1:11434`, `…/v1`, `…/v1/` all mean the same
/// server, whose chat route is `/v1/chat/completions` under the returned base. A base URL
/// with an ``APIPrefix`` of its own keeps its path (`keepingPath`): only a trailing `/` goes.
public enum ServerAddress {
    /// `text` as a base URL, or a sentence naming what is wrong with it; with `keepingPath` a
    /// trailing `/v1` stays.
    public static func parse(_ text: String, keepingPath: Bool = false) -> Result<URL, ServerAddressError> {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
            let host = url.host, !host.isEmpty
        else { return .failure(ServerAddressError(text: text)) }
        guard url.query == nil, url.fragment == nil, url.user == nil, url.password == nil else {
            return .failure(ServerAddressError(text: text))
        }
        return .success(keepingPath ? withoutTrailingSlash(url) : normalized(url))
    }

    /// Whether `url`'s path is the root or ends in `/v1`: a base URL whose routes are under
    /// `/v1` without asking. Another path (`/v1beta/openai`) may be the whole prefix.
    public static func isPlain(_ url: URL) -> Bool {
        var path = URLComponents(url: url, resolvingAgainstBaseURL: false)?.path ?? url.path
        while path.hasSuffix("/") { path.removeLast() }
        return path.isEmpty || path.lowercased().hasSuffix("/v1")
    }

    /// `url` without a trailing `/`.
    public static func withoutTrailingSlash(_ url: URL) -> URL {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return url }
        while components.path.hasSuffix("/") { components.path.removeLast() }
        return components.url ?? url
    }

    /// `url` without a trailing `/` or `/v1`.
    public static func normalized(_ url: URL) -> URL {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return url }
        var path = components.path
        while path.hasSuffix("/") { path.removeLast() }
        if path.lowercased().hasSuffix("/v1") { path.removeLast(3) }
        while path.hasSuffix("/") { path.removeLast() }
        components.path = path
        return components.url ?? url
    }
}

/// A base URL that is not an `http:` or `https:` URL with a host.
public struct ServerAddressError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What was given.
    public var text: String

    /// One sentence quoting the value.
    public var description: String {
        "needs an http: or https: URL, got '\(TerminalText.oneLine(text))'"
    }
}
