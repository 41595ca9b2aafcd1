import SybilClient
import SybilServer
import SybilWire

/// The declaration of `sybil ask`: options, arguments and help.
extension AskCommand {
    static let spec = CommandSpec<Options>(
        name: AskCommand.name, overview: "Stream an answer from an AI chat server and keep the exchange.",
        discussion: """
            Sends QUESTION (the arguments joined by spaces) to an OpenAI-compatible
            POST /v1/chat/completions with stream: true, through the same client stack the apps
            use: warm-up with GET /healthz, the send gate, the bearer token, the event-stream
            transport and its single retry for a cold start, a timeout or an expired token; a
            reply cut off midway is resumed where it stopped, without sending the question again.
            The reply may take --timeout seconds to start and stay silent as long (default: the
            profile's timeout, else 5 minutes for a server on this machine, loopback or
            localhost, where a timeout is not sent again, else 60 s to start and 30 s of silence).
            Prints the reply on standard output as it arrives: on a terminal as rendered Markdown
            (plain with NO_COLOR), the block still growing redrawn in place, after a spinner on
            standard error while nothing has arrived ("waking the service" during a warm-up);
            otherwise, or with --raw, as the text arrives. A reasoning model's thinking shows as
            a dimmed "thinking..." line until the answer starts (--show-reasoning prints it). A
            reply cut at the model's token limit is said so on standard error.
            Standard input, when it is not a terminal, is sent too: alone with no QUESTION (or
            with -), else after QUESTION and a blank line. A question over \(AskInput.maximumBytes >> 20) MiB (or the
            profile's max_input_bytes) is refused before anything is sent (exit 65).

            --attach FILE (up to \(ChatAttachment.maximumCount) files) goes with the question inline, as ordinary chats keep
            attachments: UTF-8 text in the message's text as a fenced block headed by its name
            (counted in the question's limit), a PNG, JPEG, GIF or WebP image (at most \(ChatAttachment.maximumImageBytes >> 20) MiB;
            HEIC becomes JPEG) as an OpenAI image_url part with a base64 data: URL, which makes the
            message's content an array of parts. The files are saved with the question in the
            history (name, type, size and bytes), so --continue sends them again, and `sybil
            history show` lists them. A file that cannot be read (exit 66) or is over its limit or
            neither text nor image (exit 65) is named, and nothing is sent or saved.

            The question is saved in the local history ($XDG_DATA_HOME/sybil/client/chats.sqlite)
            before it is sent, and the reply as it arrives; a failed reply is saved as failed, and
            Ctrl+C stops the reply and saves what arrived as stopped. A question that never
            reached the server (no connection could be made) is taken back out of the history;
            standard error says how to send it again, and prints it when it came from standard
            input. The
            conversation's id is printed on standard error, for `sybil history show ID` or
            `sybil ask --chat ID`.

            The server is --api-url or --profile, else SYBIL_API_URL or SYBIL_PROFILE, else the
            default profile of $XDG_CONFIG_HOME/sybil/config.toml (see `sybil profile`), else
            OPENAI_BASE_URL and OPENAI_API_KEY as the openai SDK reads them. With none of these it
            starts the reference server in-process on a free loopback port and talks to it over
            HTTP: a scripted demo, not a model, so it works with no setup at all. A server without
            a key gets no Authorization header. With no model given (--model or the profile's),
            the server's first listed model is asked, and named on standard error.

            With --web the question (at most \(WebSearchRequest.maxQueryBytes >> 10) KiB) is a web search instead: POST
            /v1/web-search, a Sybil server's route (docs/api/web-search.md). The answer is
            printed, then a numbered list of its sources with their URLs as text. It is saved in
            the history as a web search (query, answer and sources; its id on standard error),
            listed by `sybil history list` and found by `sybil search`. A plain
            OpenAI-compatible server has no such route: that is said, and the exit status is 69.
            """,
        arguments: [ChatOptions.question],
        options: [
            .repeatable(
                "--attach", valueName: "FILE", into: \.attach,
                help:
                    "Attach FILE (repeatable): UTF-8 text goes inline, a PNG, JPEG,\nGIF, WebP or HEIC image as an image part."
            ),
            .flag(
                "--web", into: \.web,
                help: "Search the web for QUESTION (a Sybil server's web-search\nroute) and save it as a web search."),
            .flag(
                "-c", "--continue", into: \.continueLatest,
                help: "Continue the most recent conversation (its messages are\nsent along)."),
            .text("--chat", valueName: "ID", into: \.chat, help: "Continue the saved conversation ID."),
            .flag("--no-save", into: \.noSave, help: "Keep nothing: the exchange lives in memory only."),
            .text(
                "--model", valueName: "NAME", into: \.model,
                help:
                    "The model to ask for (default: the profile's, else the server's\nfirst listed model; the demo server's is \(SybilServerOptions.scriptedModel))."
            ),
            .text(
                "--system", valueName: "TEXT", into: \.system,
                help:
                    "A system message sent before the messages, kept with the\nconversation and sent again when it is continued."
            ),
            .flag("--raw", into: \.raw, help: "Print the reply's Markdown as it arrives, unrendered."),
            .flag(
                "--show-reasoning", into: \.showReasoning,
                help: "Print the model's reasoning before the answer (dimmed on a\nterminal)."),
            .flag(
                "--json", into: \.json,
                help: "Print one JSON object when the reply ends, nothing else\n(docs/cli-json.md)."),
            .integer(
                "--timeout", valueName: "SECONDS", into: \.timeout, range: ReplyWait.secondsRange,
                help:
                    "Seconds to wait for the reply to start, and through each\nsilence in it ({range}; default: the profile's)."
            ),
        ] + ChatOptions.server(\.server) + [ChatOptions.seed(\.seed), .help],
        exitStatus: """
            0 the whole reply arrived and was saved, 64 usage error, 65 the question, an
            attached file or the web-search query is over its limit (or a file is neither text
            nor image), 66 no such conversation to continue or a file to attach cannot be
            read, 69 the server could not be reached or failed (or offers no web search), 73 the
            history could not be written, 76 the reply broke off or the server refused the
            request, 77 the server refused the key (401, or 403 for a key without access to the
            model), 130 the reply was stopped with Ctrl+C.
            """)

    /// The options of `sybil ask`.
    struct Options: CommandOptions {
        var attach: [String] = []
        var web = false
        var continueLatest = false
        var chat: String?
        var noSave = false
        var model: String?
        var system: String?
        var raw = false
        var showReasoning = false
        var json = false
        var timeout: Int?
        var server = ServerTarget.Options()
        var seed = 1
    }
}

/// The declaration of `sybil quick`: options, arguments and help.
extension QuickCommand {
    static let spec = CommandSpec<Options>(
        name: QuickCommand.name, overview: "Ask a Quick Question.",
        discussion: """
            Asks QUESTION (the arguments joined by spaces) the way the Quick Question panel does
            and prints the answer as it arrives (rendered Markdown on a terminal, the text itself
            otherwise or with --raw). It asks OpenAI's chat-latest unless a model was
            kept with --remember-model; that choice is Quick Question's own
            ($XDG_DATA_HOME/sybil/preferences), separate from the regular chat's. A server whose
            model list lacks that model is asked the profile's model, else its first listed one,
            named on standard error. Nothing is kept in the history unless --open-in-chat is given.
            """,
        arguments: [ChatOptions.question],
        options: [
            .text(
                "--model", valueName: "NAME", into: \.model,
                help: "Ask NAME this time (default: the kept model, else\nchat-latest)."),
            .flag("--remember-model", into: \.remember, help: "Keep --model NAME as Quick Question's model."),
            .flag(
                "--open-in-chat", into: \.openInChat,
                help: "Save the question and the answer as a chat in the history\nand print its id on standard error."),
            .flag("--raw", into: \.raw, help: "Print the answer's Markdown as it arrives, unrendered."),
        ] + ChatOptions.server(\.server) + [ChatOptions.seed(\.seed), .help],
        exitStatus: """
            0 the whole answer arrived, 64 usage error, 69 the server could not be reached or
            failed, 73 the preference or the chat could not be saved, 76 the answer broke off
            or the server refused the request, 77 the server refused the key (401 or 403).
            """)

    /// The options of `sybil quick`.
    struct Options: CommandOptions {
        var model: String?
        var remember = false
        var openInChat = false
        var raw = false
        var server = ServerTarget.Options()
        var seed = 1
    }
}

/// What `sybil ask`, `sybil quick` and `sybil app` declare alike.
enum ChatOptions {
    /// `QUESTION...`.
    static let question = CommandArgument(name: "QUESTION", help: "What to ask.", repeats: true)

    /// `--seed N`, bound to `path`.
    static func seed<Options: CommandOptions>(_ path: WritableKeyPath<Options, Int> & Sendable) -> OptionSpec<Options> {
        .integer(
            "--seed", into: path, range: 0...Int.max, default: 1,
            help: "The embedded server's agent seed (default: {default}).")
    }

    /// `--profile`, `--api-url` and `--token`, bound to `path`.
    static func server<Options: CommandOptions>(
        _ path: WritableKeyPath<Options, ServerTarget.Options> & Sendable
    ) -> [OptionSpec<Options>] {
        ServerTarget.options(apiURLExample: "http://127.0.0.1:11434").within(path)
    }
}
