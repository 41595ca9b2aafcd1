/// The declarations of `sybil workspaces` and its subcommands: options, arguments and help.
extension WorkspacesCommand {
    static let spec = CommandSpec<NoOptions>(
        name: WorkspacesCommand.name, overview: "Workspace chats: coding-agent sessions that run on a desktop.",
        usage: .subcommands(optional: false),
        subcommands: [
            CommandRow(label: "list", help: "List desktops, projects and sessions with their state."),
            CommandRow(label: "open SESSION", help: "Print a chat's rows, then follow it live until Ctrl+C."),
            CommandRow(
                label: "send SESSION TEXT",
                help: "Send a message (or --steer the running turn); exits once\nthe desktop accepted it."),
        ],
        notes: """
            With no server chosen (see `sybil ask --help`) the reference server plays the desktop
            in this process, keeping its data in $XDG_DATA_HOME/sybil/embedded (--in-memory for
            none).
            `sybil workspaces <subcommand> --help` says more.
            """)

    /// `SESSION`, which `open` and `send` take.
    static let sessionArgument = CommandArgument(
        name: "SESSION", help: "A session id (e.g. sess-42) or DESKTOP/PROJECT/SESSION.")
}

extension WorkspacesListCommand {
    static let spec = CommandSpec<ClientCommand.Options>(
        name: WorkspacesListCommand.name, overview: "List desktops, projects and sessions with their state.",
        discussion: """
            Prints each desktop (online or offline), the projects of each online desktop with
            their folder, and each project's sessions, newest first, with when their history last
            changed and whether a run is active.
            """,
        options: ClientCommand.options(),
        exitStatus: """
            0 success, 64 usage error, 65 the desktop refused the request, 69 the server could
            not be reached or a desktop is offline, 76 the server broke the contract.
            """)
}

extension WorkspacesOpenCommand {
    static let spec = CommandSpec<Options>(
        name: WorkspacesOpenCommand.name, overview: "Print a workspace chat, then follow it live.",
        discussion: """
            Loads the chat's newest window and prints its rows as the chat screen shows them
            (thinking out, the running turn's thinking as a status line, subagent work hidden).
            Then follows the desktop's events: live rows, run endings and newer history reload
            and print what changed, until SIGINT or SIGTERM.
            """,
        arguments: [WorkspacesCommand.sessionArgument],
        options: ClientCommand.options(
            [
                .text(
                    "--thread", valueName: "ID", into: \.thread,
                    help: "Print the subagent thread ID of the chat instead, and exit."),
                .flag("--no-follow", into: \.noFollow, help: "Print the current window and exit."),
            ]),
        exitStatus: """
            0 success, 64 usage error, 65 unknown session or thread, 69 the server could not be
            reached or the desktop is offline, 76 the server broke the contract.
            """)

    /// The options of `sybil workspaces open`.
    struct Options: ClientCommandOptions {
        var thread: String?
        var noFollow = false
        var client = ClientCommand.Options()
    }
}

extension WorkspacesSendCommand {
    static let spec = CommandSpec<Options>(
        name: WorkspacesSendCommand.name, overview: "Send a message into a workspace chat.",
        discussion: """
            Saves the message in the outbox ($XDG_DATA_HOME/sybil/client) before anything is sent,
            uploads the attachments first (progress on standard error), then submits it and exits
            once the desktop accepted it. Messages an earlier run left in the outbox for this chat
            are sent first, in order, with their original ids; one the desktop rejects for good (or
            that can no longer be sent from this device) leaves the outbox, its text kept first with
            the session's undelivered messages (which `sybil app` shows), and standard error gives
            the reason and its whole text, to send again. When no online desktop lists SESSION,
            those an earlier run left in the outbox for it are sent once more for the desktop's
            final answer, and standard error says what became of them: accepted, they are
            delivered, and this message follows them into their chat (the session exists,
            unlisted); refused (the session is gone), each is reported and kept likewise; while
            its desktop cannot be reached, they stay. Otherwise this message is not sent. When the
            desktop cannot be reached, the message and copies of its attachments stay in the
            outbox (exit 69); the next run (or the app) uploads the copies first, then sends it.
            With the embedded server it also waits for the turn to end, so the reply is in history
            for the next command.
            """,
        arguments: [
            WorkspacesCommand.sessionArgument,
            CommandArgument(name: "TEXT", help: "The message (the arguments joined by spaces).", repeats: true),
        ],
        options: ClientCommand.options(
            [
                .flag("--steer", into: \.steer, help: "Steer the running turn instead of starting a new one."),
                .repeatable(
                    "--attach", valueName: "FILE", into: \.attach, help: "Attach FILE (repeatable; at most 1 GiB each)."
                ),
            ]),
        exitStatus: """
            0 the desktop accepted it, 64 usage error, 65 the desktop rejected it (the reason
            is printed), an earlier message sent first left the outbox undelivered (even when
            this one was accepted, which standard output says, or stays in the outbox), or the
            session is unknown and this message was not sent, 66 the outbox cannot be opened
            (whether or not the session is known), 69 the server could not be reached or gave
            no receipt yet (a saved message stays in the outbox and is sent again by the next
            send to this chat), 76 the server broke the contract.
            """)

    /// The options of `sybil workspaces send`.
    struct Options: ClientCommandOptions {
        var steer = false
        var attach: [String] = []
        var client = ClientCommand.Options()
    }
}
