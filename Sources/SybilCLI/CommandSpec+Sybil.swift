/// The declarations of `sybil` itself and `sybil debug …`: options, arguments and help.
extension SybilCommandLine {
    static let spec = CommandSpec<Options>(
        name: "sybil", overview: "Sybil, a resilient client engine and tools for AI and agent chats.",
        usage: .lines([
            "sybil [--profile NAME | --api-url URL [--token TOKEN] | --in-memory] [--model NAME]",
            "sybil <command> [<options>]",
        ]),
        discussion: """
            On a terminal, sybil with no command opens the terminal app (see sybil app --help);
            otherwise it prints this help.
            """,
        subcommandTitle: "COMMANDS",
        subcommands: [
            CommandRow(label: "app", help: "Open the full-screen terminal app (chats, Agent, workspaces)."),
            CommandRow(
                label: "ask QUESTION",
                help:
                    "Stream an answer from an AI chat server (a profile, --api-url\nor OPENAI_BASE_URL; else the embedded demo server)."
            ),
            CommandRow(label: "quick QUESTION", help: "Ask a Quick Question (chat-latest unless another is kept)."),
            CommandRow(label: "serve", help: "Run the reference server (chats, Agent room, workspaces)."),
            CommandRow(
                label: "agent send TEXT",
                help: "Queue a message (and --attach FILE) in the Agent room and\nwait for its echo."),
            CommandRow(label: "agent tail", help: "Print the Agent room's transcript, then follow it live."),
            CommandRow(label: "agent retry|resend-all", help: "Send failed Agent room messages again with their ids."),
            CommandRow(label: "agent download ID", help: "Save an Agent room attachment's verified original."),
            CommandRow(label: "workspaces list", help: "List desktops, projects and sessions with their state."),
            CommandRow(label: "workspaces open SESSION", help: "Print a workspace chat, then follow it live."),
            CommandRow(
                label: "workspaces send SESSION TEXT", help: "Send (or --steer) a message into a workspace chat."),
            CommandRow(label: "search QUERY", help: "Search the saved chats and web searches (no server needed)."),
            CommandRow(label: "history [list|show ID]", help: "List the saved chats and web searches, or print one."),
            CommandRow(
                label: "records add|list|sync", help: "Save moods and sessions on this device; sync them later."),
            CommandRow(label: "keys set|list|remove", help: "Store API keys where the system keeps secrets."),
            CommandRow(
                label: "profile add|list|use|remove", help: "The servers you use (config.toml): URL, model, key."),
            CommandRow(label: "models [--profile NAME] [--json]", help: "List the models a server offers."),
            CommandRow(label: "breathe", help: "Breathe along with the animated sky-and-water scene."),
            CommandRow(
                label: "meditate [--minutes N]", help: "Meditate with a calm timer; the session is saved as a record."),
            CommandRow(
                label: "debug envelope [FILE]", help: "Check a workspace chat load envelope and print it normalised."),
            CommandRow(label: "debug sse [FILE]", help: "Parse a text/event-stream and print each event as JSON."),
            CommandRow(label: "debug ws-echo URL", help: "Echo every WebSocket message a server sends back to it."),
        ],
        options: [
            .help("Show this help, or a command's help after its name."),
            .flag("--version", into: \.version, help: "Print the version."),
        ],
        exitStatus: """
            0 success, 64 usage error, 65 invalid input data, 66 input not readable,
            69 server unreachable, 73 output not writable, 76 protocol error,
            77 the server refused the key.
            """)

    /// The options of `sybil` itself (a command's own come after its name).
    struct Options: CommandOptions {
        var version = false
    }
}

extension DebugCommand {
    static let spec = CommandSpec<NoOptions>(
        name: name, overview: "Decoders for checking wire data by hand or from scripts.",
        usage: .lines(["sybil debug <subcommand> [<options>] [FILE]"]),
        subcommands: [
            CommandRow(label: "envelope [FILE]", help: "Check a workspace chat load envelope and print it normalised."),
            CommandRow(label: "sse [FILE]", help: "Parse a text/event-stream and print each event as JSON."),
            CommandRow(label: "ws-echo URL", help: "Echo every WebSocket message a server sends back to it."),
        ],
        notes: "envelope and sse read FILE, or standard input when FILE is missing or '-'.")
}

extension DebugEnvelopeCommand {
    static let spec = CommandSpec<NoOptions>(
        name: name, overview: "Check a workspace chat load envelope and print it normalised.",
        usage: .spelled,
        discussion: """
            Reads the JSON answer of run.codexChatLoad from FILE (standard input when FILE is
            missing or '-') and decodes it strictly. When it is valid, prints it as indented JSON
            with members in contract order and exits 0. When it is not, prints one line naming the
            JSON path and the broken rule on standard error and exits 65.
            """,
        arguments: [
            CommandArgument(name: "FILE", help: "The envelope to read (default: standard input).", optional: true)
        ])
}

extension DebugSSECommand {
    static let spec = CommandSpec<Options>(
        name: name, overview: "Parse a text/event-stream and print each event as JSON.",
        usage: .spelled,
        discussion: """
            Feeds the bytes of FILE (standard input when FILE is missing or '-') to the event-stream
            parser and prints one JSON object per dispatched event on its own line:
              {"type":"...","data":"...","lastEventId":"..."}
            then a final line with what a reconnection would use:
              {"end":true,"lastEventId":"...","reconnectionTime":<milliseconds or null>}
            An event without its terminating blank line is discarded, and its id does not count.
            """,
        arguments: [
            CommandArgument(name: "FILE", help: "The stream to read (default: standard input).", optional: true)
        ],
        options: [
            .integer(
                "--chunk-bytes", into: \.chunkBytes, range: 1...16_777_216,
                help:
                    "Feed the parser N bytes at a time ({range}), to check\nthat events split across chunks parse the same."
            )
        ])

    /// The options of `sybil debug sse`.
    struct Options: CommandOptions {
        var chunkBytes: Int?
    }
}

extension DebugWebSocketEchoCommand {
    static let spec = CommandSpec<Options>(
        name: name, overview: "Echo every WebSocket message a server sends back to it.",
        usage: .spelled,
        discussion: """
            Connects to URL (ws: or wss:) with Sybil's WebSocket client and sends every text and
            binary message back unchanged, answering pings, until the server closes the connection.
            This is how an external conformance suite drives the client. Prints one line per
            message received on standard error.
            """,
        arguments: [CommandArgument(name: "URL", help: "The ws: or wss: URL to connect to.")],
        options: [
            .integer(
                "--max-message", valueName: "BYTES", into: \.maximumMessage, range: 1...(1 << 30), default: 16 << 20,
                help:
                    "The largest message accepted ({range}; default\n{default}); a bigger one closes the connection with 1009."
            )
        ],
        exitStatus: """
            0 when the server closed the connection, 64 usage error, 69 the server could not be
            reached or refused the handshake, 76 the server broke the protocol.
            """)

    /// The options of `sybil debug ws-echo`.
    struct Options: CommandOptions {
        var maximumMessage = 0
    }
}
