/// The `--help` texts of `sybil agent` and its subcommands.
extension HelpText {
    static let agent = """
        OVERVIEW: The Sybil Agent room: one persistent room with an agent.

        USAGE: sybil agent <subcommand> [<options>]

        SUBCOMMANDS:
          send TEXT               Queue a message (with --attach FILE…) and wait until the
                                  room's echo confirms it.
          tail                    Print the visible transcript, then follow it live.
          retry [REQUEST_ID]      Send a failed message again with its original request id.
          resend-all              Send every failed message again, in order.
          download UPLOAD_ID      Save an attachment's original bytes, verified.

        Messages go through an outbox saved before anything is sent, scoped to the server
        ($XDG_DATA_HOME/sybil/client/agent). Without --api-url or SYBIL_API_URL the reference
        server runs in this process, keeping its data in $XDG_DATA_HOME/sybil/embedded
        (--in-memory for none). `sybil agent <subcommand> --help` says more.

        """

    static let agentSend = """
        OVERVIEW: Queue a message in the Agent room and wait for its echo.

        USAGE: sybil agent send [<options>] TEXT...

        Checks every attachment against the room's limits before anything is sent, uploads
        them one at a time (progress on standard error), saves the message in the outbox,
        sends it, and exits once the room's canonical echo confirmed it. Messages an earlier
        run left queued are sent first, in order. A send whose outcome is unknown stays in
        the outbox as failed; `sybil agent retry` sends it again with the same request id,
        so the room never holds it twice.

        ARGUMENTS:
          TEXT                    The message (the arguments joined by spaces); may be
                                  empty when files are attached.

        OPTIONS:
          --attach FILE           Attach FILE (repeatable, at most 8 per message, 8 MiB per
                                  file, 6 MiB per image, 32 MiB in all).
          --photo FILE            Attach FILE as a photo: HEIC/HEIF becomes a bounded JPEG.
          --wait SECONDS          How long to wait for the echo (default 60).
        \(agentCommonOptions)

        EXIT STATUS:
          0 confirmed by the room's echo, 64 usage error, 65 refused (a file over a limit,
          a room without attachments, or the server's refusal; the reason is printed),
          66 a file or the outbox cannot be read, 69 the server could not be reached or
          the send failed (it stays in the outbox with Retry), 76 the server broke the
          contract.

        """

    static let agentTail = """
        OVERVIEW: Print the Agent room's visible transcript, then follow it live.

        USAGE: sybil agent tail [<options>]

        Prints the newest visible messages with date separators (tool traffic is hidden),
        then follows the room: replies, the agent's activity and the unread count, until
        SIGINT or SIGTERM. Reconnects replay from the last message merged, so nothing is
        printed twice and nothing is skipped.

        OPTIONS:
          --count N               How many visible messages to print first (default 20).
          --no-follow             Print the transcript and exit.
        \(agentCommonOptions)

        EXIT STATUS:
          0 success, 64 usage error, 69 the server could not be reached, 76 the server broke
          the contract.

        """

    static let agentRetry = """
        OVERVIEW: Send a failed message again with its original request id.

        USAGE: sybil agent retry [<options>] [REQUEST_ID]

        Without REQUEST_ID, retries the failed message that holds the queue. The message
        keeps its request id and time, so a send whose acknowledgement was lost is not
        stored twice. Then sends what was queued behind it and waits for the echoes.

        ARGUMENTS:
          REQUEST_ID              The request id `sybil agent tail` or a failed send printed.

        OPTIONS:
          --wait SECONDS          How long to wait for the echoes (default 60).
        \(agentCommonOptions)

        EXIT STATUS:
          0 confirmed, 64 usage error, 65 no such failed message, or refused for good,
          66 the outbox cannot be read, 69 the server could not be reached (it stays in the
          outbox), 76 the server broke the contract.

        """

    static let agentResendAll = """
        OVERVIEW: Send every failed Agent room message again, in order.

        USAGE: sybil agent resend-all [<options>]

        Each failed message keeps its request id and time. Waits for every echo.

        OPTIONS:
          --wait SECONDS          How long to wait for the echoes (default 60).
        \(agentCommonOptions)

        EXIT STATUS:
          0 all confirmed (or nothing had failed), 64 usage error, 65 one was refused for
          good, 66 the outbox cannot be read, 69 the server could not be reached (they stay
          in the outbox), 76 the server broke the contract.

        """

    static let agentDownload = """
        OVERVIEW: Save an Agent room attachment's original bytes.

        USAGE: sybil agent download [<options>] UPLOAD_ID

        Finds the attachment in the room's history, downloads its original over the
        authenticated connection (redirects are refused) and checks its exact size and
        SHA-256 before writing anything.

        ARGUMENTS:
          UPLOAD_ID               The attachment's upload id, as `sybil agent tail` prints it.

        OPTIONS:
          -o, --output FILE       Write to FILE (default: the attachment's file name in the
                                  current directory). An existing file is not overwritten.
        \(agentCommonOptions)

        EXIT STATUS:
          0 success, 64 usage error, 65 no such attachment or the bytes do not match,
          69 the server could not be reached, 73 the output cannot be written, 76 the
          server broke the contract.

        """

    static let agentCommonOptions = """
          --api-url URL           The server's base URL, e.g. http://127.0.0.1:8799/api
                                  (default: $SYBIL_API_URL, else the embedded server).
          --token TOKEN           The bearer token (default: $SYBIL_TOKEN).
          --in-memory             Give the embedded server no data on disk.
          -h, --help              Show this help.
        """
}
