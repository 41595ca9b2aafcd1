import Foundation
import SybilClient
import SybilCore
import SybilHTTP
import SybilServer
import SybilStore

/// `sybil serve`: the reference server until SIGINT or SIGTERM, then a graceful stop.
enum ServeCommand {
    static let name = "sybil serve"
    static let defaultPort = 8799
    /// The address `--host` binds by default: loopback only.
    static let defaultHost = "127.0.0.1"
    /// The seed's UI-test fixture: this address, port and token.
    static let fixtureHost = "127.0.0.1"
    static let fixturePort = 8799
    static let fixtureToken = "fixture-token"

    /// What the command line asked for.
    struct Request {
        var options: SybilServerOptions
        var configuration: HTTPServer.Configuration
        /// Where the token came from, for the start-up line (a given token is never printed).
        var tokenSource: String?
    }

    static func run(_ arguments: [String], io: CommandIO) async throws(UsageError) -> ExitCode {
        guard let request = try parse(arguments, environment: io.environment, random: io.random) else {
            io.writeOutput(spec.help)
            return .success
        }
        let server: ReferenceServer
        do {
            server = try ReferenceServer(options: request.options, configuration: request.configuration)
        } catch {
            io.writeError("sybil serve: cannot start: \(error)\n")
            return .unavailable
        }
        io.writeOutput("sybil serve: listening on \(server.baseURL.absoluteString)\n")
        let host = request.configuration.host
        if !(host.hasPrefix("127.") || host == "::1") {
            io.writeError(
                "sybil serve: warning: \(host) is not loopback; anyone who can reach it needs only the token, and traffic is not encrypted\n"
            )
        }
        if let source = request.tokenSource {
            io.writeOutput("sybil serve: token from \(source)\n")
        } else {
            io.writeOutput("sybil serve: token \(request.options.token)\n")
        }
        await io.waitForTermination()
        io.writeError("sybil serve: stopping; finishing responses in flight\n")
        await server.shutdown(grace: .seconds(5))
        return .success
    }

    /// The request for `arguments`, or `nil` when help was asked for; a token nobody gave is drawn
    /// from `random`.
    static func parse(
        _ arguments: [String], environment: [String: String], random: any RandomSource = SystemRandomSource()
    ) throws(UsageError) -> Request? {
        guard let given = try spec.parse(arguments)?.options else { return nil }
        var configuration = HTTPServer.Configuration(
            host: given.host ?? defaultHost, port: given.port ?? defaultPort,
            maximumConnections: given.maximumConnections)
        var token = given.token
        var tokenSource = token == nil ? nil : "--token"
        var options = SybilServerOptions(token: "")
        options.seed = UInt64(given.seed)
        options.pace = .milliseconds(given.pace)
        options.coldStart = given.coldStart.map { .seconds($0) }
        options.idleTimeout = .seconds(given.idleTimeout)
        options.coldStartWaits = given.coldStartWait
        if let text = given.upstream {
            // With or without /v1, as a profile's base URL: the routes are added below it.
            guard case .success(let url) = ServerAddress.parse(text) else {
                throw UsageError(command: name, message: "--upstream needs an http: or https: URL, got '\(text)'")
            }
            options.upstream = url
        }
        options.upstreamModel = given.upstreamModel
        if options.upstreamModel != nil, options.upstream == nil {
            throw UsageError(command: name, message: "--upstream-model needs --upstream URL")
        }
        options.debugEndpoints = given.debugEndpoints
        options.debugDesktops = given.debugDesktops
        options.attachmentsAvailable = !given.attachmentsUnavailable
        let dataDirectory = given.dataDirectory
        let inMemory = given.inMemory
        let fixture = given.fixture
        let hostGiven = given.host != nil
        let portGiven = given.port != nil
        if inMemory && dataDirectory != nil {
            throw UsageError(command: name, message: "--in-memory and --data-dir exclude each other")
        }
        if fixture {
            // The fixture's address and token, unless the command line gave its own; the
            // fixture token wins over $SYBIL_TOKEN (the command line comes first).
            if !hostGiven { configuration.host = fixtureHost }
            if !portGiven { configuration.port = fixturePort }
            if token == nil {
                token = fixtureToken
                tokenSource = nil
            }
        }
        if token == nil, let fromEnvironment = environment["SYBIL_TOKEN"], !fromEnvironment.isEmpty {
            token = fromEnvironment
            tokenSource = "SYBIL_TOKEN"
        }
        if let token, token.isEmpty || token.contains(where: { $0.isWhitespace || !$0.isASCII }) {
            throw UsageError(command: name, message: "the token must be visible ASCII without spaces")
        }
        options.token = token ?? randomToken(from: random)
        options.upstreamKey = environment["SYBIL_UPSTREAM_KEY"] ?? environment["OPENAI_API_KEY"]
        options.storage =
            inMemory
            ? .inMemory
            : .directory(dataDirectory ?? XDGDirectories(environment: environment).sybilData + "/server")
        return Request(options: options, configuration: configuration, tokenSource: tokenSource)
    }

    /// 32 random hex digits from `random`.
    static func randomToken(from random: any RandomSource) -> String {
        Hex.padded(random.nextUInt64()) + Hex.padded(random.nextUInt64())
    }
}
