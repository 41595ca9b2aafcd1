/// The declarations of `sybil keys` and its subcommands: arguments and help.
extension KeysCommand {
    static let spec = CommandSpec<NoOptions>(
        name: name, overview: "Stored API keys, kept where the system keeps secrets.",
        usage: .subcommands(optional: false),
        subcommands: [
            CommandRow(label: "set NAME", help: "Store a key read from standard input (never echoed)."),
            CommandRow(label: "list", help: "Print the names of the stored keys."),
            CommandRow(label: "remove NAME", help: "Remove a stored key."),
        ],
        notes: """
            Keys are kept in the Secret Service (GNOME Keyring, KWallet) when the session
            bus offers one, else in 0600 files in $XDG_DATA_HOME/sybil/keys, which a
            notice on standard error says; keys found in those files are moved into the
            Secret Service once it is there. A key is never printed, and never written to
            the configuration or the history. `sybil keys <subcommand> --help` says more.
            """)

    static let setSpec = CommandSpec<NoOptions>(
        name: name + " set", overview: "Store a key read from standard input.",
        usage: .spelled,
        discussion: """
            Reads the key from standard input, never from an argument, so it stays out of
            the shell history and the process list. On a terminal it asks for the key and
            does not echo what is typed (Enter ends it, Ctrl+C cancels); from a pipe it
            reads everything and drops one trailing newline. A key stored earlier under
            the same name is replaced.
            """,
        arguments: [CommandArgument(name: "NAME", help: nameHelp)],
        exitStatus: """
            0 stored, 64 usage error, 65 the key read is empty or not UTF-8 text, 66
            standard input cannot be read, 73 the key cannot be stored, 130 cancelled.
            """)

    static let listSpec = CommandSpec<NoOptions>(
        name: name + " list", overview: "Print the names of the stored keys.",
        usage: .spelled,
        discussion: """
            One name per line, sorted; never a key itself. Where the keys are kept, and how
            many there are, goes to standard error.
            """,
        exitStatus: "0 success, 64 usage error, 66 the keys cannot be read.")

    static let removeSpec = CommandSpec<NoOptions>(
        name: name + " remove", overview: "Remove a stored key.",
        usage: .spelled,
        arguments: [CommandArgument(name: "NAME", help: nameHelp)],
        exitStatus: """
            0 removed, 64 usage error, 66 there was no key of that name, 73 the key cannot
            be removed.
            """)
}
