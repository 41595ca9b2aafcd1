import Foundation
import SybilClient
import SybilCore
import SybilHTTP
import SybilNet
import SybilStore

extension ServerTarget.Connection {
    /// The server as ``CapabilityDiscovery`` probes it: the base URL, the key, the headers.
    var discoveryServer: CapabilityDiscovery.Server {
        CapabilityDiscovery.Server(baseURL: baseURL, key: sendsKey ? key : nil, headers: headers)
    }

    /// The server named for messages: its base URL and how it was chosen.
    var serverName: String {
        "\(TerminalText.oneLine(baseURL.absoluteString)) (\(origin))"
    }

    /// Discovery remembering in `$XDG_DATA_HOME/sybil/preferences` (in memory when that
    /// cannot be created: it is only asked again next time). Its probes connect within
    /// `connectTimeout` (`SYBIL_CONNECT_TIMEOUT`; `nil`: the HTTP client's default).
    static func discovery(io: CommandIO, connectTimeout: Duration? = nil) -> CapabilityDiscovery {
        let store: any KeyValueStore =
            (try? FileKeyValueStore.standard(environment: io.environment)) ?? InMemoryKeyValueStore()
        return CapabilityDiscovery(
            http: DefaultHTTPClient.make(redirects: .deliver, connectTimeout: connectTimeout), store: store,
            now: WallClock.milliseconds)
    }

    /// What the server offers: the embedded server is a Sybil server without asking; another
    /// is asked on first contact and remembered. `nil` when it cannot be told (the server
    /// could not be reached): the caller goes on and the request itself says what is wrong.
    func capabilities(io: CommandIO) async -> ServerCapabilities? {
        if embedded != nil { return .sybil }
        if let capabilities { return capabilities }
        return await Self.discovery(io: io, connectTimeout: connectTimeout).capabilities(of: discoveryServer)
            .capabilities
    }
}

/// Refuses a command whose surface the chosen server does not offer, before it tries
/// anything else: `sybil agent …`, `sybil workspaces …` and `sybil records sync` against a
/// plain OpenAI-compatible server exit 69 with one line saying so. When a command the server
/// was remembered to offer still fails to reach it (69) or gets answers it cannot use (76,
/// a 404 among them), what was remembered is forgotten and the next run asks again.
enum SurfaceGate {
    /// Runs `body` (the subcommand declared by `spec`) unless the server does not offer
    /// `surface`.
    static func run<Options: ClientCommandOptions>(
        _ surface: ServerSurface, spec: CommandSpec<Options>, arguments: [String], io: CommandIO,
        _ body: () async throws(UsageError) -> ExitCode
    ) async throws(UsageError) -> ExitCode {
        if let refusal = await refusal(surface, spec: spec, arguments: arguments, io: io) { return refusal }
        let status = try await body()
        if status == .unavailable || status == .protocolError,
            let (common, _) = try? ClientCommand.parse(arguments, environment: io.environment, spec: spec),
            let baseURL = common.target.apiURL
        {
            ServerTarget.Connection.discovery(io: io).forget(baseURL)
        }
        return status
    }

    /// The exit status when `surface` is not offered by the server `arguments` choose (the
    /// sentence on standard error), else `nil` and the command runs. Help and usage errors
    /// are left to the command itself.
    static func refusal<Options: ClientCommandOptions>(
        _ surface: ServerSurface, spec: CommandSpec<Options>, arguments: [String], io: CommandIO
    ) async -> ExitCode? {
        guard let (common, _) = try? ClientCommand.parse(arguments, environment: io.environment, spec: spec),
            common.target.apiURL != nil
        else { return nil }
        // A key that cannot be read is reported by the command itself, once.
        var quiet = io
        quiet.writeError = { _ in }
        guard let connection = common.target.connect(command: spec.name, io: quiet),
            let offered = await connection.capabilities(io: io), !offered.offers(surface)
        else { return nil }
        io.writeError("\(spec.name): \(surface.notOfferedSentence(server: connection.serverName))\n")
        return .unavailable
    }
}
