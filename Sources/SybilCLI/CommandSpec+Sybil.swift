/// The declarations of `sybil` itself and `sybil debug …`: options, arguments and help.
extension CommandSpec {
    static let sybil = CommandSpec(
        name: "sybil", overview: "Sybil, a resilient client engine and tools for AI and agent chats.",
        usage: .lines(["sybil [--in-memory | --api-url URL [--token TOKEN]]", "sybil <command> [<options>]"]),
        discussion: """
            On a terminal, sybil with no command opens the terminal app (see sybil app --help);
            otherwise it prints this help.
            """,
        subcommandTitle: "COMMANDS",
        subcommands: [
            Row(label: "app", help: "Open the full-screen terminal app (chats, Agent, workspaces)."),
            Row(
                label: "ask QUESTION",
                help:
                    "Stream an answer from an AI chat server (the embedded\nreference server unless --api-url or SYBIL_API_URL is set)."
            ),
            Row(label: "quick QUESTION", help: "Ask a Quick Question (chat-latest unless another is kept)."),
            Row(label: "serve", help: "Run the reference server (chats, Agent room, workspaces)."),
            Row(
                label: "agent send TEXT",
                help: "Queue a message (and --attach FILE) in the Agent room and\nwait for its echo."),
            Row(label: "agent tail", help: "Print the Agent room's transcript, then follow it live."),
            Row(label: "agent retry|resend-all", help: "Send failed Agent room messages again with their ids."),
            Row(label: "agent download ID", help: "Save an Agent room attachment's verified original."),
            Row(label: "workspaces list", help: "List desktops, projects and sessions with their state."),
            Row(label: "workspaces open SESSION", help: "Print a workspace chat, then follow it live."),
            Row(label: "workspaces send SESSION TEXT", help: "Send (or --steer) a message into a workspace chat."),
            Row(label: "search QUERY", help: "Search the saved chats and web searches (no server needed)."),
            Row(label: "history [list|show ID]", help: "List the saved chats and web searches, or print one."),
            Row(label: "records add|list|sync", help: "Save moods and sessions on this device; sync them later."),
            Row(label: "keys set|list|remove", help: "Store API keys where the system keeps secrets."),
            Row(label: "profile add|list|use|remove", help: "The servers you use (config.toml): URL, model, key."),
            Row(label: "models [--profile NAME] [--json]", help: "List the models a server offers."),
            Row(label: "breathe", help: "Breathe along with the animated sky-and-water scene."),
            Row(label: "meditate [--minutes N]", help: "Meditate with a calm timer; the session is saved as a record."),
            Row(label: "debug envelope [FILE]", help: "Check a workspace chat load envelope and print it normalised."),
            Row(label: "debug sse [FILE]", help: "Parse a text/event-stream and print each event as JSON."),
            Row(label: "debug ws-echo URL", help: "Echo every WebSocket message a server sends back to it."),
        ],
        options: [
            .flag("-h", "--help", help: "Show this help, or a command's help after its name."),
            .flag("--version", help: "Print the version."),
        ],
        exitStatus: """
            0 success, 64 usage error, 65 invalid input data, 66 input not readable,
            69 server unreachable, 73 output not writable, 76 protocol error.
            """)

    static let debug = CommandSpec(
        name: "sybil debug", overview: "Decoders for checking wire data by hand or from scripts.",
        usage: .lines(["sybil debug <subcommand> [<options>] [FILE]"]),
        subcommands: [
            Row(label: "envelope [FILE]", help: "Check a workspace chat load envelope and print it normalised."),
            Row(label: "sse [FILE]", help: "Parse a text/event-stream and print each event as JSON."),
            Row(label: "ws-echo URL", help: "Echo every WebSocket message a server sends back to it."),
        ],
        notes: "envelope and sse read FILE, or standard input when FILE is missing or '-'.")

    static let debugEnvelope = CommandSpec(
        name: DebugEnvelopeCommand.name, overview: "Check a workspace chat load envelope and print it normalised.",
        usage: .spelled,
        discussion: """
            Reads the JSON answer of run.codexChatLoad from FILE (standard input when FILE is
            missing or '-') and decodes it strictly. When it is valid, prints it as indented JSON
            with members in contract order and exits 0. When it is not, prints one line naming the
            JSON path and the broken rule on standard error and exits 65.
            """,
        arguments: [Argument(name: "FILE", help: "The envelope to read (default: standard input).", optional: true)])

    static let debugSSE = CommandSpec(
        name: DebugSSECommand.name, overview: "Parse a text/event-stream and print each event as JSON.",
        usage: .spelled,
        discussion: """
            Feeds the bytes of FILE (standard input when FILE is missing or '-') to the event-stream
            parser and prints one JSON object per dispatched event on its own line:
              {"type":"...","data":"...","lastEventId":"..."}
            then a final line with what a reconnection would use:
              {"end":true,"lastEventId":"...","reconnectionTime":<milliseconds or null>}
            An event without its terminating blank line is discarded, and its id does not count.
            """,
        arguments: [Argument(name: "FILE", help: "The stream to read (default: standard input).", optional: true)],
        options: [DebugSSECommand.chunkBytesOption])

    static let debugWebSocketEcho = CommandSpec(
        name: DebugWebSocketEchoCommand.name, overview: "Echo every WebSocket message a server sends back to it.",
        usage: .spelled,
        discussion: """
            Connects to URL (ws: or wss:) with Sybil's WebSocket client and sends every text and
            binary message back unchanged, answering pings, until the server closes the connection.
            This is how an external conformance suite drives the client. Prints one line per
            message received on standard error.
            """,
        arguments: [Argument(name: "URL", help: "The ws: or wss: URL to connect to.")],
        options: [DebugWebSocketEchoCommand.maximumMessageOption],
        exitStatus: """
            0 when the server closed the connection, 64 usage error, 69 the server could not be
            reached or refused the handshake, 76 the server broke the protocol.
            """)
}

extension DebugSSECommand {
    /// `--chunk-bytes N`.
    static let chunkBytesOption = OptionSpec.integer(
        "--chunk-bytes", range: 1...16_777_216,
        help: "Feed the parser N bytes at a time ({range}), to check\nthat events split across chunks parse the same.")
}

extension DebugWebSocketEchoCommand {
    /// `--max-message BYTES`.
    static let maximumMessageOption = OptionSpec.integer(
        "--max-message", valueName: "BYTES", range: 1...(1 << 30), default: 16 << 20,
        help:
            "The largest message accepted ({range}; default\n{default}); a bigger one closes the connection with 1009.")
}
