/// The `--help` text of every command. Tests compare these verbatim, so a change here is a
/// change of the documented interface.
enum HelpText {
    static let sybil = """
        OVERVIEW: Sybil, a resilient client engine and tools for AI and agent chats.

        USAGE: sybil <command> [<options>]

        COMMANDS:
          debug envelope [FILE]   Check a workspace chat load envelope and print it normalised.
          debug sse [FILE]        Parse a text/event-stream and print each event as JSON.
          debug ws-echo URL       Echo every WebSocket message a server sends back to it.

        OPTIONS:
          -h, --help              Show this help, or a command's help after its name.
          --version               Print the version.

        EXIT STATUS:
          0 success, 64 usage error, 65 invalid input data, 66 input not readable,
          69 server unreachable, 76 protocol error.

        """

    static let debug = """
        OVERVIEW: Decoders for checking wire data by hand or from scripts.

        USAGE: sybil debug <subcommand> [<options>] [FILE]

        SUBCOMMANDS:
          envelope [FILE]         Check a workspace chat load envelope and print it normalised.
          sse [FILE]              Parse a text/event-stream and print each event as JSON.
          ws-echo URL             Echo every WebSocket message a server sends back to it.

        envelope and sse read FILE, or standard input when FILE is missing or '-'.

        """

    static let debugEnvelope = """
        OVERVIEW: Check a workspace chat load envelope and print it normalised.

        USAGE: sybil debug envelope [FILE]

        Reads the JSON answer of run.codexChatLoad from FILE (standard input when FILE is
        missing or '-') and decodes it strictly. When it is valid, prints it as indented JSON
        with members in contract order and exits 0. When it is not, prints one line naming the
        JSON path and the broken rule on standard error and exits 65.

        ARGUMENTS:
          FILE                    The envelope to read (default: standard input).

        OPTIONS:
          -h, --help              Show this help.

        """

    static let debugSSE = """
        OVERVIEW: Parse a text/event-stream and print each event as JSON.

        USAGE: sybil debug sse [--chunk-bytes N] [FILE]

        Feeds the bytes of FILE (standard input when FILE is missing or '-') to the event-stream
        parser and prints one JSON object per dispatched event on its own line:
          {"type":"...","data":"...","lastEventId":"..."}
        then a final line with what a reconnection would use:
          {"end":true,"lastEventId":"...","reconnectionTime":<milliseconds or null>}
        An event without its terminating blank line is discarded, and its id does not count.

        ARGUMENTS:
          FILE                    The stream to read (default: standard input).

        OPTIONS:
          --chunk-bytes N         Feed the parser N bytes at a time (1 to 16777216), to check
                                  that events split across chunks parse the same.
          -h, --help              Show this help.

        """

    static let debugWebSocketEcho = """
        OVERVIEW: Echo every WebSocket message a server sends back to it.

        USAGE: sybil debug ws-echo [--max-message BYTES] URL

        Connects to URL (ws: or wss:) with Sybil's WebSocket client and sends every text and
        binary message back unchanged, answering pings, until the server closes the connection.
        This is how an external conformance suite drives the client. Prints one line per
        message received on standard error.

        ARGUMENTS:
          URL                     The ws: or wss: URL to connect to.

        OPTIONS:
          --max-message BYTES     The largest message accepted (1 to 1073741824; default
                                  16777216); a bigger one closes the connection with 1009.
          -h, --help              Show this help.

        EXIT STATUS:
          0 when the server closed the connection, 64 usage error, 69 the server could not be
          reached or refused the handshake, 76 the server broke the protocol.

        """
}
