/// The `--help` text of every command. Tests compare these verbatim, so a change here is a
/// change of the documented interface.
enum HelpText {
    static let sybil = """
        OVERVIEW: Sybil, a resilient client engine and tools for AI and agent chats.

        USAGE: sybil <command> [<options>]

        COMMANDS:
          ask QUESTION            Stream an answer from an AI chat server (the embedded
                                  reference server unless --api-url or SYBIL_API_URL is set).
          quick QUESTION          Ask a Quick Question (chat-latest unless another is kept).
          serve                   Run the reference server (chats, Agent room, workspaces).
          agent send TEXT         Queue a message (and --attach FILE) in the Agent room and
                                  wait for its echo.
          agent tail              Print the Agent room's transcript, then follow it live.
          agent retry|resend-all  Send failed Agent room messages again with their ids.
          agent download ID       Save an Agent room attachment's verified original.
          workspaces list         List desktops, projects and sessions with their state.
          workspaces open SESSION Print a workspace chat, then follow it live.
          workspaces send SESSION TEXT
                                  Send (or --steer) a message into a workspace chat.
          search QUERY            Search the saved chats and web searches (no server needed).
          history [list|show ID]  List the saved chats, or print one.
          records add|list|sync   Save moods and sessions on this device; sync them later.
          breathe                 Breathe along with the animated sky-and-water scene.
          debug envelope [FILE]   Check a workspace chat load envelope and print it normalised.
          debug sse [FILE]        Parse a text/event-stream and print each event as JSON.
          debug ws-echo URL       Echo every WebSocket message a server sends back to it.

        OPTIONS:
          -h, --help              Show this help, or a command's help after its name.
          --version               Print the version.

        EXIT STATUS:
          0 success, 64 usage error, 65 invalid input data, 66 input not readable,
          69 server unreachable, 73 output not writable, 76 protocol error.

        """

    static let workspaces = """
        OVERVIEW: Workspace chats: coding-agent sessions that run on a desktop.

        USAGE: sybil workspaces <subcommand> [<options>]

        SUBCOMMANDS:
          list                    List desktops, projects and sessions with their state.
          open SESSION            Print a chat's rows, then follow it live until Ctrl+C.
          send SESSION TEXT       Send a message (or --steer the running turn); exits once
                                  the desktop accepted it.

        Without --api-url or SYBIL_API_URL the reference server plays the desktop in this
        process, keeping its data in $XDG_DATA_HOME/sybil/embedded (--in-memory for none).
        `sybil workspaces <subcommand> --help` says more.

        """

    static let workspacesCommonOptions = """
          --api-url URL           The server's base URL (default: $SYBIL_API_URL, else the
                                  embedded server).
          --token TOKEN           The bearer token (default: $SYBIL_TOKEN).
          --in-memory             Give the embedded server no data on disk.
          -h, --help              Show this help.
        """

    static let workspacesList = """
        OVERVIEW: List desktops, projects and sessions with their state.

        USAGE: sybil workspaces list [<options>]

        Prints each desktop (online or offline), the projects of each online desktop with
        their folder, and each project's sessions, newest first, with when their history last
        changed and whether a run is active.

        OPTIONS:
        \(workspacesCommonOptions)

        EXIT STATUS:
          0 success, 64 usage error, 65 the desktop refused the request, 69 the server could
          not be reached or a desktop is offline, 76 the server broke the contract.

        """

    static let workspacesOpen = """
        OVERVIEW: Print a workspace chat, then follow it live.

        USAGE: sybil workspaces open [<options>] SESSION

        Loads the chat's newest window and prints its rows as the chat screen shows them
        (thinking out, the running turn's thinking as a status line, subagent work hidden).
        Then follows the desktop's events: live rows, run endings and newer history reload
        and print what changed, until SIGINT or SIGTERM.

        ARGUMENTS:
          SESSION                 A session id (e.g. sess-42) or DESKTOP/PROJECT/SESSION.

        OPTIONS:
          --thread ID             Print the subagent thread ID of the chat instead, and exit.
          --no-follow             Print the current window and exit.
        \(workspacesCommonOptions)

        EXIT STATUS:
          0 success, 64 usage error, 65 unknown session or thread, 69 the server could not be
          reached or the desktop is offline, 76 the server broke the contract.

        """

    static let workspacesSend = """
        OVERVIEW: Send a message into a workspace chat.

        USAGE: sybil workspaces send [<options>] SESSION TEXT...

        Saves the message in the outbox ($XDG_DATA_HOME/sybil/client) before anything is sent,
        uploads the attachments first (progress on standard error), then submits it and exits
        once the desktop accepted it. Messages an earlier run left in the outbox for this chat
        are sent first, in order, with their original ids. With the embedded server it also
        waits for the turn to end, so the reply is in history for the next command.

        ARGUMENTS:
          SESSION                 A session id (e.g. sess-42) or DESKTOP/PROJECT/SESSION.
          TEXT                    The message (the arguments joined by spaces).

        OPTIONS:
          --steer                 Steer the running turn instead of starting a new one.
          --attach FILE           Attach FILE (repeatable; at most 1 GiB each).
        \(workspacesCommonOptions)

        EXIT STATUS:
          0 the desktop accepted it, 64 usage error, 65 the desktop rejected it (the reason
          is printed) or the session is unknown, 66 the outbox cannot be opened, 69 the
          server could not be reached or gave no receipt yet (a saved message stays in the
          outbox and is sent again by the next send to this chat), 76 the server broke the
          contract.

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

    static let serve = """
        OVERVIEW: Run the reference server.

        USAGE: sybil serve [<options>]

        Serves the three Sybil surfaces over HTTP/1.1 (docs/api): the OpenAI-compatible chat
        endpoint with a scripted agent, the Agent room (WebSocket stream, uploads), and the
        workspace desktop RPC with live overlay events, each at the root and under /api.
        Prints the address and the token on one line each, then runs until SIGINT or SIGTERM
        and stops gracefully.

        OPTIONS:
          --host ADDRESS          Numeric address to bind (default: 127.0.0.1).
          --port N                Port, 0 for any free one (default: 8799).
          --token TOKEN           Bearer token for every route but /healthz (default:
                                  $SYBIL_TOKEN, else a random one that is printed).
          --fixture               Play the UI-test fixture: 127.0.0.1:8799 with the token
                                  fixture-token. An explicit --host, --port or --token
                                  still wins; $SYBIL_TOKEN does not.
          --seed N                Seed of the scripted agent (default: 1).
          --pace MS               Pause between streamed tokens (0 to 60000; default: 40).
          --cold-start SECONDS    Simulate a scale-to-zero start of this length for the first
                                  request after --idle-timeout (0 to 600; default: off).
          --idle-timeout SECONDS  Idle time before the next request is a cold start
                                  (default: 300).
          --cold-start-wait       During a cold start, hold requests until it ends instead of
                                  answering 503 with Retry-After.
          --upstream URL          Forward chats to this OpenAI-compatible server, with the key
                                  from $SYBIL_UPSTREAM_KEY or $OPENAI_API_KEY.
          --data-dir DIR          Keep SQLite data here (default:
                                  $XDG_DATA_HOME/sybil/server).
          --in-memory             Keep nothing after the server stops.
          --max-connections N     Connections served at once; more get 503 (default: 4096).
          --attachments-unavailable
                                  Refuse uploads with 503 and close Agent streams with 4503.
          --debug-endpoints       Add /debug/ws-echo (no auth) for WebSocket conformance suites.
          --debug-desktops        Add the desktop.setOnline RPC to take desktops offline and back.
          -h, --help              Show this help.

        """
}
