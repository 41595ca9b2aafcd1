import SybilHTTP
import SybilServer

/// The declaration of `sybil serve`: options and help.
extension ServeCommand {
    static let spec = CommandSpec<Options>(
        name: ServeCommand.name, overview: "Run the reference server.",
        discussion: """
            Serves the three Sybil surfaces over HTTP/1.1 (docs/api): the OpenAI-compatible chat
            endpoint with a scripted agent, the Agent room (WebSocket stream, uploads), and the
            workspace desktop RPC with live overlay events, each at the root and under /api.
            Prints the address and the token on one line each, then runs until SIGINT or SIGTERM
            and stops gracefully.
            """,
        options: optionList)

    /// The options of `sybil serve`.
    struct Options: CommandOptions {
        var host: String?
        var port: Int?
        var token: String?
        var fixture = false
        var seed = 0
        var pace = 0
        var coldStart: Int?
        var idleTimeout = 0
        var coldStartWait = false
        var upstream: String?
        var upstreamModel: String?
        var dataDirectory: String?
        var inMemory = false
        var maximumConnections = 0
        var attachmentsUnavailable = false
        var debugEndpoints = false
        var debugDesktops = false
    }

    /// The options of `sybil serve`, in help order.
    private static var optionList: [OptionSpec<Options>] {
        let defaults = SybilServerOptions(token: "")
        return [
            .text(
                "--host", valueName: "ADDRESS", into: \.host, shownDefault: defaultHost,
                help: "Numeric address to bind (default: {default})."),
            .integer(
                "--port", into: \.port, range: 0...65_535, shownDefault: defaultPort,
                help: "Port, 0 for any free one ({range}; default: {default})."),
            .text(
                "--token", valueName: "TOKEN", into: \.token,
                help:
                    "Bearer token for every route but /healthz (default:\n$SYBIL_TOKEN, else a random one that is printed)."
            ),
            .flag(
                "--fixture", into: \.fixture,
                help: """
                    Play the UI-test fixture: \(fixtureHost):\(fixturePort) with the token
                    \(fixtureToken). An explicit --host, --port or --token
                    still wins; $SYBIL_TOKEN does not.
                    """),
            .integer(
                "--seed", into: \.seed, range: 0...Int.max, default: Int(defaults.seed),
                help: "Seed of the scripted agent (default: {default})."),
            .integer(
                "--pace", valueName: "MS", into: \.pace, range: 0...60_000,
                default: Int(defaults.pace / .milliseconds(1)),
                help: "Pause between streamed tokens ({range}; default: {default})."),
            .integer(
                "--cold-start", valueName: "SECONDS", into: \.coldStart, range: 0...600,
                help:
                    "Simulate a scale-to-zero start of this length for the first\nrequest after --idle-timeout ({range}; default: off)."
            ),
            .integer(
                "--idle-timeout", valueName: "SECONDS", into: \.idleTimeout, range: 0...86_400,
                default: Int(defaults.idleTimeout / .seconds(1)),
                help: "Idle time before the next request is a cold start\n({range}; default: {default})."),
            .flag(
                "--cold-start-wait", into: \.coldStartWait,
                help: "During a cold start, hold requests until it ends instead of\nanswering 503 with Retry-After."),
            .text(
                "--upstream", valueName: "URL", into: \.upstream,
                help:
                    "Forward chats to this OpenAI-compatible server, with the key\nfrom $SYBIL_UPSTREAM_KEY or $OPENAI_API_KEY."
            ),
            .text(
                "--upstream-model", valueName: "NAME", into: \.upstreamModel,
                help:
                    "With --upstream: this model answers the Agent room's turns,\nwith the room's recent history as context."
            ),
            .text(
                "--data-dir", valueName: "DIR", into: \.dataDirectory,
                help: "Keep SQLite data here (default:\n$XDG_DATA_HOME/sybil/server)."),
            .flag("--in-memory", into: \.inMemory, help: "Keep nothing after the server stops."),
            .integer(
                "--max-connections", into: \.maximumConnections, range: 1...100_000,
                default: HTTPServer.Configuration().maximumConnections,
                help: "Connections served at once; more get 503 ({range};\ndefault: {default})."),
            .flag(
                "--attachments-unavailable", into: \.attachmentsUnavailable,
                help: "Refuse uploads with 503 and close Agent streams with 4503."),
            .flag(
                "--debug-endpoints", into: \.debugEndpoints,
                help: "Add /debug/ws-echo (no auth) for WebSocket conformance suites."),
            .flag(
                "--debug-desktops", into: \.debugDesktops,
                help: "Add the desktop.setOnline RPC to take desktops offline and back."),
            .help,
        ]
    }
}
