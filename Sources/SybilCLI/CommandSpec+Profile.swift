/// The declarations of `sybil profile`, its subcommands, and `sybil models`.
extension CommandSpec {
    static let profile = CommandSpec(
        name: ProfileCommand.name, overview: "The servers you use, kept in config.toml.",
        usage: .subcommands(optional: false),
        subcommands: [
            Row(label: "add NAME", help: "Add or change a profile (--base-url, --model, --key)."),
            Row(label: "list", help: "Print the profiles; the default is marked with *."),
            Row(label: "use NAME", help: "Make NAME the default profile."),
            Row(label: "remove NAME", help: "Remove a profile."),
        ],
        notes: """
            Profiles live in $XDG_CONFIG_HOME/sybil/config.toml (see docs/config.md), which
            these commands rewrite whole (comments are not kept). A profile names where its
            key is (a stored key, `sybil keys set NAME`, or an environment variable), never
            the key itself. Every command that talks to a server takes --profile NAME.
            """)

    static let profileAdd = CommandSpec(
        name: ProfileCommand.name + " add", overview: "Add a profile, or change the given fields of one.",
        discussion: """
            The base URL may end in /v1 or not: http://127.0.0.1:11434 and
            http://127.0.0.1:11434/v1 are the same server. Without --key or --key-env no
            Authorization header is sent (Ollama, llama.cpp and LiteLLM without a master key
            need none). With --key-command the command's output is the key when the server
            refuses one (and when no other key is given). The first profile added becomes the
            default. On an existing profile only the fields given change: what else it holds
            (headers, max_input_bytes, …) and the file's comments stay.
            """,
        arguments: [Argument(name: "NAME", help: "The profile's name: 1 to 64 letters, digits, '.', '_', '-'.")],
        options: [
            ProfileCommand.Option.baseURL, ProfileCommand.Option.model, ProfileCommand.Option.key,
            ProfileCommand.Option.keyEnvironment, ProfileCommand.Option.keyCommand, ProfileCommand.Option.system,
            .help,
        ],
        exitStatus: "0 saved, 64 usage error, 73 config.toml cannot be written.")

    static let profileList = CommandSpec(
        name: ProfileCommand.name + " list", overview: "Print the profiles.",
        usage: .spelled,
        discussion: """
            One line each: a * before the default, the name, the base URL, the model and
            where the key comes from.
            """,
        exitStatus: "0 success, 64 usage error or config.toml cannot be read.")

    static let profileUse = CommandSpec(
        name: ProfileCommand.name + " use", overview: "Make a profile the default.",
        usage: .spelled,
        arguments: [Argument(name: "NAME", help: "The profile.")],
        exitStatus: "0 saved, 64 usage error, 66 no such profile, 73 config.toml cannot be written.")

    static let profileRemove = CommandSpec(
        name: ProfileCommand.name + " remove", overview: "Remove a profile.",
        usage: .spelled,
        arguments: [Argument(name: "NAME", help: "The profile.")],
        exitStatus: "0 removed, 64 usage error, 66 no such profile, 73 config.toml cannot be written.")

    static let models = CommandSpec(
        name: ModelsCommand.name, overview: "List the models a server offers.",
        discussion: """
            Asks the chosen server (--profile, --api-url, or as `sybil ask` chooses) for
            GET /v1/models and prints one model id per line, in the server's order; with
            --json, one JSON object: {"models": [{"id", "created", "ownedBy"}]}.
            """,
        options: [ModelsCommand.json] + ClientCommand.options(apiURLExample: "http://127.0.0.1:11434"),
        exitStatus: """
            0 success, 64 usage error, 69 the server could not be reached, 76 the server
            refused or answered something that is not a model list, 77 the key was refused.
            """)
}
