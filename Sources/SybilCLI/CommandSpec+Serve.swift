import SybilHTTP
import SybilServer

/// The declaration of `sybil serve`: options and help.
extension CommandSpec {
    static let serve = CommandSpec(
        name: ServeCommand.name, overview: "Run the reference server.",
        discussion: """
            Serves the three Sybil surfaces over HTTP/1.1 (docs/api): the OpenAI-compatible chat
            endpoint with a scripted agent, the Agent room (WebSocket stream, uploads), and the
            workspace desktop RPC with live overlay events, each at the root and under /api.
            Prints the address and the token on one line each, then runs until SIGINT or SIGTERM
            and stops gracefully.
            """,
        options: ServeCommand.Option.all)
}

extension ServeCommand {
    /// The options of `sybil serve`, in help order.
    enum Option {
        private static let defaults = SybilServerOptions(token: "")

        static let host = OptionSpec.text(
            "--host", valueName: "ADDRESS", default: "127.0.0.1",
            help: "Numeric address to bind (default: {default}).")
        static let port = OptionSpec.integer(
            "--port", range: 0...65_535, default: ServeCommand.defaultPort,
            help: "Port, 0 for any free one ({range}; default: {default}).")
        static let token = OptionSpec.text(
            "--token", valueName: "TOKEN",
            help:
                "Bearer token for every route but /healthz (default:\n$SYBIL_TOKEN, else a random one that is printed)."
        )
        static let fixture = OptionSpec.flag(
            "--fixture",
            help: """
                Play the UI-test fixture: \(ServeCommand.fixtureHost):\(ServeCommand.fixturePort) with the token
                \(ServeCommand.fixtureToken). An explicit --host, --port or --token
                still wins; $SYBIL_TOKEN does not.
                """)
        static let seed = OptionSpec.integer(
            "--seed", range: 0...Int.max, default: Int(defaults.seed),
            help: "Seed of the scripted agent (default: {default}).")
        static let pace = OptionSpec.integer(
            "--pace", valueName: "MS", range: 0...60_000, default: Int(defaults.pace / .milliseconds(1)),
            help: "Pause between streamed tokens ({range}; default: {default}).")
        static let coldStart = OptionSpec.integer(
            "--cold-start", valueName: "SECONDS", range: 0...600,
            help:
                "Simulate a scale-to-zero start of this length for the first\nrequest after --idle-timeout ({range}; default: off)."
        )
        static let idleTimeout = OptionSpec.integer(
            "--idle-timeout", valueName: "SECONDS", range: 0...86_400, default: Int(defaults.idleTimeout / .seconds(1)),
            help: "Idle time before the next request is a cold start\n({range}; default: {default}).")
        static let coldStartWait = OptionSpec.flag(
            "--cold-start-wait",
            help: "During a cold start, hold requests until it ends instead of\nanswering 503 with Retry-After.")
        static let upstream = OptionSpec.text(
            "--upstream", valueName: "URL",
            help:
                "Forward chats to this OpenAI-compatible server, with the key\nfrom $SYBIL_UPSTREAM_KEY or $OPENAI_API_KEY."
        )
        static let upstreamModel = OptionSpec.text(
            "--upstream-model", valueName: "NAME",
            help:
                "With --upstream: this model answers the Agent room's turns,\nwith the room's recent history as context."
        )
        static let dataDirectory = OptionSpec.text(
            "--data-dir", valueName: "DIR", help: "Keep SQLite data here (default:\n$XDG_DATA_HOME/sybil/server).")
        static let inMemory = OptionSpec.flag("--in-memory", help: "Keep nothing after the server stops.")
        static let maximumConnections = OptionSpec.integer(
            "--max-connections", range: 1...100_000, default: HTTPServer.Configuration().maximumConnections,
            help: "Connections served at once; more get 503 ({range};\ndefault: {default}).")
        static let attachmentsUnavailable = OptionSpec.flag(
            "--attachments-unavailable", help: "Refuse uploads with 503 and close Agent streams with 4503.")
        static let debugEndpoints = OptionSpec.flag(
            "--debug-endpoints", help: "Add /debug/ws-echo (no auth) for WebSocket conformance suites.")
        static let debugDesktops = OptionSpec.flag(
            "--debug-desktops", help: "Add the desktop.setOnline RPC to take desktops offline and back.")

        static let all = [
            host, port, token, fixture, seed, pace, coldStart, idleTimeout, coldStartWait, upstream, upstreamModel,
            dataDirectory,
            inMemory, maximumConnections, attachmentsUnavailable, debugEndpoints, debugDesktops, .help,
        ]
    }
}
