import SybilClient

/// The declarations of `sybil profile`, its subcommands, and `sybil models`.
extension ProfileCommand {
    static let spec = CommandSpec<NoOptions>(
        name: ProfileCommand.name, overview: "The servers you use, kept in config.toml.",
        usage: .subcommands(optional: false),
        subcommands: [
            CommandRow(label: "add NAME", help: "Add or change a profile (--base-url, --model, --key)."),
            CommandRow(label: "list", help: "Print the profiles; the default is marked with *."),
            CommandRow(label: "use NAME", help: "Make NAME the default profile."),
            CommandRow(label: "remove NAME", help: "Remove a profile."),
        ],
        notes: """
            Profiles live in $XDG_CONFIG_HOME/sybil/config.toml (see docs/config.md), which
            these commands rewrite whole (comments are not kept). A profile names where its
            key is (a stored key, `sybil keys set NAME`, or an environment variable), never
            the key itself. Every command that talks to a server takes --profile NAME.
            """)

    static let addSpec = CommandSpec<AddOptions>(
        name: ProfileCommand.name + " add", overview: "Add a profile, or change the given fields of one.",
        discussion: """
            The base URL may end in /v1 or not: http://127.0.0.1:11434 and
            http://127.0.0.1:11434/v1 are the same server, whose routes are under /v1. A base
            URL with another path may be the whole prefix, as the OpenAI SDKs take base_url
            (Gemini's https://generativelanguage.googleapis.com/v1beta/openai/): then
            GET <base>/models and GET <base>/v1/models are asked once, with the key, and the
            prefix that answered is kept as api_prefix and printed; --api-prefix / or /v1
            says it instead. Without --key or --key-env no Authorization header is sent
            (Ollama, llama.cpp and LiteLLM without a master key need none). With
            --key-command the command's output is the key when the server refuses one (and
            when no other key is given). --timeout is how long a chat waits for the server's
            first byte and through each silence of the reply; by default 5 minutes for a
            server on this machine (loopback or localhost: a model loading or a long prompt
            on a CPU), else 60 s for the head and 30 s of silence. The first profile added
            becomes the default. On an existing profile only the fields given change: what
            else it holds (headers, max_input_bytes, …) and the file's comments stay.
            """,
        arguments: [CommandArgument(name: "NAME", help: "The profile's name: 1 to 64 letters, digits, '.', '_', '-'.")],
        options: [
            .text(
                "--base-url", valueName: "URL", into: \.baseURL,
                help: "The server's base URL, with or without /v1 (required for a\nnew profile)."),
            .text("--model", valueName: "NAME", into: \.model, help: "The model to ask."),
            .text(
                "--key", valueName: "KEYNAME", into: \.key, help: "The stored key to send (`sybil keys set KEYNAME`)."),
            .text(
                "--key-env", valueName: "VAR", into: \.keyEnvironment, help: "The environment variable holding the key."
            ),
            .text(
                "--key-command", valueName: "CMD", into: \.keyCommand,
                help: "A shell command printing a fresh key, run when the server\nrefuses one (as `gh auth token`)."),
            .text("--system", valueName: "TEXT", into: \.system, help: "A system prompt for new chats."),
            .text(
                "--api-prefix", valueName: "PATH", into: \.apiPrefix,
                help:
                    "Where the OpenAI routes are under the base URL: / or /v1\n(default: asked of the server, see above)."
            ),
            .integer(
                "--timeout", valueName: "SECONDS", into: \.timeout, range: ReplyWait.secondsRange,
                help: "Seconds a chat waits for the server's reply, and through\neach silence in it ({range})."),
            .help,
        ],
        exitStatus: """
            0 saved, 64 usage error, 69 neither prefix of the base URL lists models (nothing is
            saved), 73 config.toml cannot be written.
            """)

    static let listSpec = CommandSpec<NoOptions>(
        name: ProfileCommand.name + " list", overview: "Print the profiles.",
        usage: .spelled,
        discussion: """
            One line each: a * before the default, the name, the base URL, the model and
            where the key comes from.
            """,
        exitStatus: "0 success, 64 usage error or config.toml cannot be read.")

    static let useSpec = CommandSpec<NoOptions>(
        name: ProfileCommand.name + " use", overview: "Make a profile the default.",
        usage: .spelled,
        arguments: [CommandArgument(name: "NAME", help: "The profile.")],
        exitStatus: "0 saved, 64 usage error, 66 no such profile, 73 config.toml cannot be written.")

    static let removeSpec = CommandSpec<NoOptions>(
        name: ProfileCommand.name + " remove", overview: "Remove a profile.",
        usage: .spelled,
        arguments: [CommandArgument(name: "NAME", help: "The profile.")],
        exitStatus: "0 removed, 64 usage error, 66 no such profile, 73 config.toml cannot be written.")

    /// The options of `sybil profile add`.
    struct AddOptions: CommandOptions {
        var baseURL: String?
        var model: String?
        var key: String?
        var keyEnvironment: String?
        var keyCommand: String?
        var system: String?
        var timeout: Int?
        var apiPrefix: String?
    }
}

extension ModelsCommand {
    static let spec = CommandSpec<Options>(
        name: ModelsCommand.name, overview: "List the models a server offers.",
        discussion: """
            Asks the chosen server (--profile, --api-url, or as `sybil ask` chooses) for
            GET /v1/models and prints one model id per line, in the server's order; with
            --json, one JSON object: {"models": [{"id", "created", "ownedBy"}]}. When the
            server lists none (a fresh Ollama, a LiteLLM proxy without a model list), nothing
            is printed ({"models": []} with --json) and standard error says so and how to
            name a model: `sybil ask --model NAME`, or a profile's model.
            """,
        options: ClientCommand.options(
            [.flag("--json", into: \.json, help: "Print one JSON object instead of one id per line.")],
            apiURLExample: "http://127.0.0.1:11434"),
        exitStatus: """
            0 success (also with no models listed, said on standard error), 64 usage error,
            69 the server could not be reached, 76 the server refused or answered something
            that is not a model list, 77 the key was refused.
            """)

    /// The options of `sybil models`.
    struct Options: ClientCommandOptions {
        var json = false
        var client = ClientCommand.Options()
    }
}
