import Foundation
import SybilClient
import SybilCore
import SybilHTTP
import SybilNet
import SybilServer
import SybilStore

/// Which server a client command talks to (``ServerChoice``): `--api-url` or `--profile`,
/// `SYBIL_API_URL` or `SYBIL_PROFILE`, the configuration's default profile,
/// `OPENAI_BASE_URL`/`OPENAI_API_KEY`, or, when none is set, the reference server embedded in
/// this process on a free loopback port (a scripted demo, with a generated token never printed).
struct ServerTarget {
    /// The server's base URL once validated, `nil` for the embedded server.
    var apiURL: URL? { choice?.baseURL }
    /// The choice, once ``validate(command:)`` made it.
    private(set) var choice: ServerChoice?

    private var apiURLText: String?
    private var token: String?
    private var profileName: String?
    private let environment: [String: String]

    /// The target the environment names.
    init(environment: [String: String]) {
        self.environment = environment
    }

    /// `--profile`, `--api-url` and `--token` as given.
    struct Options: CommandOptions {
        var profile: String?
        var apiURL: String?
        var token: String?
    }

    /// `--api-url URL`; `example` is shown in its help.
    static func apiURLOption(example: String? = nil) -> OptionSpec<Options> {
        .text(
            "--api-url", valueName: "URL", into: \.apiURL,
            help: example.map {
                "The server's base URL, with or without /v1, e.g.\n\($0) (default: $SYBIL_API_URL, a\nprofile, else the embedded server)."
            }
                ?? "The server's base URL, with or without /v1 (default:\n$SYBIL_API_URL, a profile, else the embedded server)."
        )
    }

    /// `--token TOKEN`.
    static let tokenOption = OptionSpec<Options>.text(
        "--token", valueName: "TOKEN", into: \.token,
        help: "The bearer token (default: $SYBIL_TOKEN, else the\nprofile's key).")

    /// `--profile NAME`.
    static let profileOption = OptionSpec<Options>.text(
        "--profile", valueName: "NAME", into: \.profile,
        help: "Use the profile NAME from config.toml (default:\n$SYBIL_PROFILE, else default_profile).")

    /// `--profile`, `--api-url` (with `example` in its help) and `--token`, in help order.
    static func options(apiURLExample example: String? = nil) -> [OptionSpec<Options>] {
        [profileOption, apiURLOption(example: example), tokenOption]
    }

    /// The target the environment names, with `--api-url`, `--profile` and `--token` from
    /// `options` over it.
    init(environment: [String: String], options: Options) {
        self.init(environment: environment)
        apiURLText = options.apiURL
        token = options.token
        profileName = options.profile
    }

    /// Chooses the server once every option is read: a bad URL, an unknown profile or a
    /// configuration file that cannot be read is a usage error naming it.
    mutating func validate(command: String) throws(UsageError) {
        let configuration: ClientConfiguration?
        do {
            configuration = try ConfigurationFile(environment: environment).load()
        } catch {
            throw UsageError(command: command, message: error.description)
        }
        do {
            choice = try ServerChoice.resolve(
                apiURL: apiURLText, token: token, profile: profileName, environment: environment,
                configuration: configuration)
        } catch {
            throw UsageError(command: command, message: error.description)
        }
    }

    /// A live connection: the base URL, a token chain holding the key (or none), the profile's
    /// headers, and the embedded server when there is one (stopped by ``Connection/close()``).
    struct Connection {
        var baseURL: URL
        var tokens: TokenProvider
        /// Whether requests carry `Authorization` (a profile without a key sends none).
        var sendsKey = true
        /// The key read when connecting, for requests that cannot renew it.
        var key: String?
        /// Whether a refused key can be renewed (the profile's `key_command`).
        var renewsKey = false
        /// What the server offers, when known without asking: the embedded server is a Sybil
        /// server; another server as remembered from an earlier contact (``CapabilityDiscovery``).
        var capabilities: ServerCapabilities?
        /// How the server was chosen.
        var origin: String
        /// The profile, when one was chosen.
        var profile: ClientProfile?
        var embedded: ReferenceServer?
        /// How long a connection to the server may take to be made (`SYBIL_CONNECT_TIMEOUT`);
        /// `nil`: the HTTP client's default.
        var connectTimeout: Duration?

        /// Where the server's OpenAI routes are under ``baseURL``: the profile's `api_prefix`,
        /// else `/v1`.
        var apiPrefix: APIPrefix { profile?.routePrefix ?? .v1 }

        /// The profile's header fields.
        var headers: HTTPHeaders {
            HTTPHeaders(profile?.headers.map { ($0.name, $0.value) } ?? [])
        }

        func close() async {
            await embedded?.shutdown()
        }

        /// The URL that scopes what is kept on this device for the server (outbox, drafts):
        /// its base URL, or one fixed name for the embedded server, which listens on a new port
        /// each run but keeps the same data.
        var storageScope: URL {
            embedded == nil ? baseURL : URL(string: "http://embedded.sybil.invalid")!
        }

        /// An HTTP client for this server whose connections are made within
        /// ``connectTimeout``: every command's client comes from here, so
        /// `SYBIL_CONNECT_TIMEOUT` bounds them all. `redirects` as in
        /// ``DefaultHTTPClient/make(redirects:connectTimeout:)``.
        func http(redirects: HTTPRedirects = .refuse) -> any HTTPClient {
            DefaultHTTPClient.make(redirects: redirects, connectTimeout: connectTimeout)
        }

        /// The base URL as the Sybil surfaces' API base; when it cannot be one, says why on
        /// standard error (as `command`) and returns `nil` (a usage error).
        func apiBase(command: String, io: CommandIO) -> AgentAPIBase? {
            do {
                return try AgentAPIBase(baseURL)
            } catch {
                io.writeError("\(command): \(error)\n")
                return nil
            }
        }
    }

    /// Connects: the chosen server, or an embedded one configured by `configure`. Reports a
    /// server that cannot start, or a key that cannot be read, on standard error and returns
    /// `nil`.
    func connect(
        command: String, io: CommandIO, configure: (inout SybilServerOptions) -> Void = { _ in }
    ) -> Connection? {
        let account = "sybil-cli"
        let choice = choice ?? .embedded
        let connectTimeout: Duration?
        switch Self.connectTimeout(environment: io.environment) {
        case .success(let given): connectTimeout = given
        case .failure(let refusal):
            io.writeError("\(command): \(refusal.message)\n")
            return nil
        }
        let keyCommand = choice.profile?.keyCommand.map { KeyCommand($0, environment: io.environment) }
        func tokens(_ token: String?) -> TokenProvider {
            TokenProvider(
                current: TokenLocation(
                    store: InMemorySecretStore(token.map { [account: $0] } ?? [:]), account: account),
                refresher: keyCommand.map { KeyCommandRefresher(command: $0) })
        }
        if let baseURL = choice.baseURL {
            var key: String?
            switch choice.key {
            case .none:
                // A profile that only has a key command takes its first key from it too.
                guard let keyCommand else { break }
                switch keyCommand.runNow() {
                case .success(let fresh): key = fresh
                case .failure(let error):
                    io.writeError("\(command): \(choice.origin): \(error)\n")
                    return nil
                }
            case .given(let value, _): key = value
            case .environment(let variable, let value):
                guard let value else {
                    io.writeError("\(command): \(choice.origin) takes its key from $\(variable), which is not set\n")
                    return nil
                }
                key = value
            case .stored(let name):
                do {
                    let (store, notice) = try KeyStores.open(environment: io.environment)
                    guard let found = try store.key(named: name) else {
                        io.writeError(
                            "\(command): \(choice.origin) uses the stored key '\(name)', which is not set;"
                                + " store it with `sybil keys set \(name)`\n")
                        return nil
                    }
                    _ = notice
                    key = found
                } catch {
                    io.writeError("\(command): cannot read the stored key '\(name)': \(error)\n")
                    return nil
                }
            }
            return Connection(
                baseURL: baseURL, tokens: tokens(key), sendsKey: key != nil, key: key, renewsKey: keyCommand != nil,
                capabilities: Connection.discovery(io: io).remembered(baseURL), origin: choice.origin,
                profile: choice.profile, embedded: nil, connectTimeout: connectTimeout)
        }
        var options = SybilServerOptions(token: ServeCommand.randomToken(from: io.random))
        configure(&options)
        do {
            let server = try ReferenceServer(options: options)
            io.writeError(
                "\(command): using the embedded server at \(server.baseURL.absoluteString)"
                    + " (demo: scripted replies, not a model — connect one with `sybil profile add`)\n")
            return Connection(
                baseURL: server.baseURL, tokens: tokens(options.token), key: options.token, capabilities: .sybil,
                origin: choice.origin, embedded: server, connectTimeout: connectTimeout)
        } catch {
            io.writeError("\(command): cannot start the embedded server: \(error)\n")
            return nil
        }
    }

    /// `SYBIL_CONNECT_TIMEOUT`, a number of seconds above 0 (fractions allowed) that bounds the
    /// making of a connection; `nil` when it is not set.
    static func connectTimeout(environment: [String: String]) -> Result<Duration?, ConnectTimeoutRefusal> {
        guard let text = environment["SYBIL_CONNECT_TIMEOUT"] else { return .success(nil) }
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard let seconds = Double(trimmed), seconds.isFinite, seconds > 0, seconds <= 86_400,
            trimmed.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") })
        else {
            return .failure(
                ConnectTimeoutRefusal(
                    message: "SYBIL_CONNECT_TIMEOUT must be a number of seconds above 0, not \(text.debugDescription)"))
        }
        return .success(.milliseconds(Int64((seconds * 1000).rounded(.up))))
    }

    /// Why `SYBIL_CONNECT_TIMEOUT` cannot be used.
    struct ConnectTimeoutRefusal: Error, Equatable {
        var message: String
    }
}
