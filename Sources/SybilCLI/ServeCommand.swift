import Foundation
import SybilCore
import SybilNet
import SybilServer
import SybilStore

/// `sybil serve`: the reference server until SIGINT or SIGTERM, then a graceful stop.
enum ServeCommand {
    static let name = "sybil serve"
    static let defaultPort = 8799
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
            io.writeOutput(HelpText.serve)
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

    /// The request for `arguments`, or `nil` when help was asked for.
    /// The request for `arguments`, or `nil` when help was asked for; a token nobody gave is drawn
    /// from `random`.
    static func parse(
        _ arguments: [String], environment: [String: String], random: any RandomSource = SystemRandomSource()
    ) throws(UsageError) -> Request? {
        var cursor = ArgumentCursor(arguments, command: name)
        var configuration = HTTPServer.Configuration(port: defaultPort)
        var token: String?
        var tokenSource: String?
        var options = SybilServerOptions(token: "")
        var dataDirectory: String?
        var inMemory = false
        var fixture = false
        var hostGiven = false
        var portGiven = false
        while let next = cursor.next() {
            guard case .option(let option, let inline) = next else {
                throw UsageError(command: name, message: "takes options only, no arguments")
            }
            switch option {
            case "-h", "--help": return nil
            case "--host":
                configuration.host = try cursor.value(for: option, inlineValue: inline)
                hostGiven = true
            case "--port":
                configuration.port = try cursor.integer(for: option, inlineValue: inline, in: 0...65_535)
                portGiven = true
            case "--fixture": fixture = true
            case "--token":
                token = try cursor.value(for: option, inlineValue: inline)
                tokenSource = "--token"
            case "--seed": options.seed = UInt64(try cursor.integer(for: option, inlineValue: inline, in: 0...Int.max))
            case "--pace":
                options.pace = .milliseconds(try cursor.integer(for: option, inlineValue: inline, in: 0...60_000))
            case "--cold-start":
                options.coldStart = .seconds(try cursor.integer(for: option, inlineValue: inline, in: 0...600))
            case "--idle-timeout":
                options.idleTimeout = .seconds(try cursor.integer(for: option, inlineValue: inline, in: 0...86_400))
            case "--cold-start-wait": options.coldStartWaits = true
            case "--upstream":
                let text = try cursor.value(for: option, inlineValue: inline)
                guard let url = URL(string: text), ["http", "https"].contains(url.scheme?.lowercased() ?? ""),
                    url.host != nil
                else {
                    throw UsageError(command: name, message: "--upstream needs an http: or https: URL, got '\(text)'")
                }
                options.upstream = url
            case "--debug-endpoints": options.debugEndpoints = true
            case "--debug-desktops": options.debugDesktops = true
            case "--data-dir": dataDirectory = try cursor.value(for: option, inlineValue: inline)
            case "--in-memory": inMemory = true
            case "--max-connections":
                configuration.maximumConnections = try cursor.integer(for: option, inlineValue: inline, in: 1...100_000)
            case "--attachments-unavailable": options.attachmentsAvailable = false
            default: throw cursor.unknown(option)
            }
        }
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
