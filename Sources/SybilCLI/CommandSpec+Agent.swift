import SybilClient

/// The declarations of `sybil agent` and its subcommands: options, arguments and help.
extension AgentCommand {
    static let spec = CommandSpec<NoOptions>(
        name: AgentCommand.name, overview: "The Sybil Agent room: one persistent room with an agent.",
        usage: .subcommands(optional: false),
        subcommands: [
            CommandRow(
                label: "send TEXT",
                help: "Queue a message (with --attach FILE…) and wait until the\nroom's echo confirms it."),
            CommandRow(label: "tail", help: "Print the visible transcript, then follow it live."),
            CommandRow(label: "retry [REQUEST_ID]", help: "Send a failed message again with its original request id."),
            CommandRow(label: "resend-all", help: "Send every failed message again, in order."),
            CommandRow(label: "discard [REQUEST_ID]", help: "Drop a message refused for good; what it held goes on."),
            CommandRow(
                label: "draft [show|clear|retry [N]]", help: "List, clear or retry the draft an earlier send left."),
            CommandRow(label: "download UPLOAD_ID", help: "Save an attachment's original bytes, verified."),
            CommandRow(label: "preview UPLOAD_ID", help: "Print an attachment's text, or an image's type and size."),
        ],
        notes: """
            Messages go through an outbox saved before anything is sent, scoped to the server
            ($XDG_DATA_HOME/sybil/client/agent). With no server chosen (see `sybil ask --help`)
            the reference server runs in this process, keeping its data in
            $XDG_DATA_HOME/sybil/embedded (--in-memory for none). `sybil agent <subcommand>
            --help` says more.
            """)

    /// `--api-url`, `--token`, `--in-memory` and help, as every Agent subcommand has them.
    static let commonOptions = ClientCommand.options(apiURLExample: apiURLExample)
    /// The `--api-url` example in every Agent subcommand's help.
    static let apiURLExample = "http://127.0.0.1:8799/api"

    /// `--wait SECONDS`, bound to `path`: how long a subcommand waits for the room's echoes.
    static func waitOption<Options: CommandOptions>(
        _ path: WritableKeyPath<Options, Int> & Sendable,
        help: String = "How long to wait for the echoes ({range}; default {default})."
    ) -> OptionSpec<Options> {
        .integer("--wait", valueName: "SECONDS", into: path, range: 1...3_600, default: 60, help: help)
    }

    /// The options of the subcommands that wait for echoes and take no others: `retry`,
    /// `resend-all`, `discard`.
    struct WaitOptions: ClientCommandOptions {
        var wait = 60
        var client = ClientCommand.Options()
    }

    /// `--wait` and the common options.
    static let waitOptions = ClientCommand.options([waitOption(\WaitOptions.wait)], apiURLExample: apiURLExample)
}

extension AgentSendCommand {
    static let spec = CommandSpec<Options>(
        name: AgentSendCommand.name, overview: "Queue a message in the Agent room and wait for its echo.",
        discussion: """
            Checks every attachment against the room's limits before anything is sent, uploads
            them one at a time (progress on standard error), saves the message in the outbox,
            sends it, and exits once the room's canonical echo confirmed it. Messages an earlier
            run left queued are sent first, in order. A send whose outcome is unknown stays in
            the outbox as failed; `sybil agent retry` sends it again with the same request id,
            so the room never holds it twice. The draft is kept on this device: files an earlier
            run uploaded go with this message, a file that failed is left out and stays for the
            next run (`sybil agent draft show`, `sybil agent draft clear`), and without TEXT the
            draft's saved caption is sent.
            """,
        arguments: [
            CommandArgument(
                name: "TEXT",
                help: "The message (the arguments joined by spaces); may be\nempty when files are attached.",
                repeats: true)
        ],
        options: ClientCommand.options(
            [
                .repeatable(
                    "--attach", valueName: "FILE", into: \.files, as: { (path: $0, kind: .file) },
                    help:
                        "Attach FILE (repeatable, at most 8 per message, 8 MiB per\nfile, 6 MiB per image, 32 MiB in all)."
                ),
                .repeatable(
                    "--photo", valueName: "FILE", into: \.files, as: { (path: $0, kind: .photo) },
                    help: "Attach FILE as a photo: HEIC/HEIF becomes a bounded JPEG."),
                AgentCommand.waitOption(\.wait, help: "How long to wait for the echo ({range}; default {default})."),
            ], apiURLExample: AgentCommand.apiURLExample),
        exitStatus: """
            0 confirmed by the room's echo, 64 usage error, 65 refused (a file over a limit,
            a room without attachments, or the server's refusal; the reason is printed),
            66 a file or the outbox cannot be read, 69 the server could not be reached or
            the send failed (it stays in the outbox with Retry), 76 the server broke the
            contract.
            """)

    /// The options of `sybil agent send`.
    struct Options: ClientCommandOptions {
        /// `--attach` and `--photo` files, in the order given.
        var files: [(path: String, kind: AgentAttachmentSource.Kind)] = []
        var wait = 60
        var client = ClientCommand.Options()
    }
}

extension AgentTailCommand {
    static let spec = CommandSpec<Options>(
        name: AgentTailCommand.name, overview: "Print the Agent room's visible transcript, then follow it live.",
        discussion: """
            Prints the newest visible messages with date separators (tool traffic is hidden),
            then follows the room: replies, the agent's activity and the unread count, until
            SIGINT or SIGTERM. Reconnects replay from the last message merged, so nothing is
            printed twice and nothing is skipped.
            """,
        options: ClientCommand.options(
            [
                .integer(
                    "--count", into: \.count, range: 1...10_000, default: 20,
                    help: "How many visible messages to print first ({range};\ndefault {default})."),
                .flag("--no-follow", into: \.noFollow, help: "Print the transcript and exit."),
            ], apiURLExample: AgentCommand.apiURLExample),
        exitStatus: """
            0 success, 64 usage error, 69 the server could not be reached, 76 the server broke
            the contract.
            """)

    /// The options of `sybil agent tail`.
    struct Options: ClientCommandOptions {
        var count = 20
        var noFollow = false
        var client = ClientCommand.Options()
    }
}

extension AgentRetryCommand {
    static let retrySpec = CommandSpec<AgentCommand.WaitOptions>(
        name: AgentRetryCommand.retryName, overview: "Send a failed message again with its original request id.",
        discussion: """
            Without REQUEST_ID, retries the failed message that holds the queue. The message
            keeps its request id and time, so a send whose acknowledgement was lost is not
            stored twice. Then sends what was queued behind it and waits for the echoes.
            """,
        arguments: [
            CommandArgument(
                name: "REQUEST_ID", help: "The request id `sybil agent tail` or a failed send printed.", optional: true)
        ],
        options: AgentCommand.waitOptions,
        exitStatus: """
            0 confirmed, 64 usage error, 65 no such failed message, or refused for good,
            66 the outbox cannot be read, 69 the server could not be reached (it stays in the
            outbox), 76 the server broke the contract.
            """)

    static let resendAllSpec = CommandSpec<AgentCommand.WaitOptions>(
        name: AgentRetryCommand.resendAllName, overview: "Send every failed Agent room message again, in order.",
        discussion: "Each failed message keeps its request id and time. Waits for every echo.",
        options: AgentCommand.waitOptions,
        exitStatus: """
            0 all confirmed (or nothing had failed), 64 usage error, 65 one was refused for
            good, 66 the outbox cannot be read, 69 the server could not be reached (they stay
            in the outbox), 76 the server broke the contract.
            """)
}

extension AgentDownloadCommand {
    static let spec = CommandSpec<Options>(
        name: AgentDownloadCommand.name, overview: "Save an Agent room attachment's original bytes.",
        discussion: """
            Finds the attachment in the room's history, downloads its original over the
            authenticated connection (redirects are refused) and checks its exact size and
            SHA-256 before writing anything.
            """,
        arguments: [
            CommandArgument(name: "UPLOAD_ID", help: "The attachment's upload id, as `sybil agent tail` prints it.")
        ],
        options: ClientCommand.options(
            [
                .text(
                    "-o", "--output", valueName: "FILE", into: \.output,
                    help:
                        "Write to FILE (default: the attachment's file name in the\ncurrent directory). An existing file is not overwritten."
                )
            ], apiURLExample: AgentCommand.apiURLExample),
        exitStatus: """
            0 success, 64 usage error, 65 no such attachment or the bytes do not match,
            69 the server could not be reached, 73 the output cannot be written, 76 the
            server broke the contract.
            """)

    /// The options of `sybil agent download`.
    struct Options: ClientCommandOptions {
        var output: String?
        var client = ClientCommand.Options()
    }
}

extension AgentDiscardCommand {
    static let spec = CommandSpec<AgentCommand.WaitOptions>(
        name: AgentDiscardCommand.name, overview: "Drop an Agent room message the server refused for good.",
        discussion: """
            A message refused for good (400, 409, 413, …) cannot succeed when sent again, and it
            holds the messages queued after it. Discard removes it from the outbox, prints its
            text on standard output so it can be written again, then sends what it held and
            waits for their echoes. Without REQUEST_ID, discards the one refused message.
            """,
        arguments: [
            CommandArgument(
                name: "REQUEST_ID", help: "The request id a failed send or `sybil agent tail` printed.",
                optional: true)
        ],
        options: AgentCommand.waitOptions,
        exitStatus: """
            0 discarded (and what it held confirmed), 64 usage error, 65 no such failed
            message, none refused, or several refused (they are listed), 66 the outbox cannot
            be read, 69 a held message could not be sent (it stays in the outbox).
            """)
}

extension AgentDraftCommand {
    static let spec = CommandSpec<ClientCommand.Options>(
        name: AgentDraftCommand.name, overview: "Show, clear or retry the Agent room draft kept on this device.",
        discussion: """
            A send whose attachment failed keeps its draft: the caption, the files that
            uploaded and the ones that did not (a failed one with why). `show` (the default)
            lists each attachment, numbered, with its state; `clear` removes them all and
            empties the caption; `retry [N]` uploads failed or interrupted attachment N (the
            first such one without N) again with the same upload id, from its staged copy or
            its file, and waits for it. Uploaded originals stay on the server. Failed work is
            never retried by itself; `show` and `clear` upload nothing.
            """,
        arguments: [
            CommandArgument(name: "ACTION", help: "show (default), clear or retry.", optional: true),
            CommandArgument(name: "N", help: "With retry: the attachment's number as show lists it.", optional: true),
        ],
        options: AgentCommand.commonOptions,
        exitStatus: """
            0 success, 64 usage error, 65 nothing to retry or the retry was refused, 66 the
            draft cannot be read, 69 the server could not take the retry now, 73 the cleared
            draft cannot be saved.
            """)
}

extension AgentPreviewCommand {
    static let spec = CommandSpec<ClientCommand.Options>(
        name: AgentPreviewCommand.name, overview: "Print a preview of an Agent room attachment.",
        discussion: """
            Finds the attachment in the room's history and downloads its original, verified.
            Text (HTML and SVG included) is printed as text, never rendered, with control
            characters replaced, at most 64 KiB; an image prints its type and pixel size;
            other files say so (save them with `sybil agent download`).
            """,
        arguments: [
            CommandArgument(name: "UPLOAD_ID", help: "The attachment's upload id, as `sybil agent tail` prints it.")
        ],
        options: AgentCommand.commonOptions,
        exitStatus: """
            0 success, 64 usage error, 65 no such attachment or the bytes do not match,
            69 the server could not be reached, 76 the server broke the contract.
            """)
}
