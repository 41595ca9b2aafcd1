import SybilStore

/// The declarations of `sybil search` and `sybil history`: options, arguments and help.
extension CommandSpec {
    static let search = CommandSpec(
        name: SearchCommand.name, overview: "Search the saved chats and web searches.",
        discussion: """
            Searches the local history ($XDG_DATA_HOME/sybil/client/chats.sqlite): conversation
            titles, messages, and saved web-search queries and answers. Each word matches as a
            word prefix ("plan" finds "planning"), ignoring case and accents; all words must
            match. Chinese and Japanese text matches anywhere. Prints one line per hit, best
            match first: the title, then an excerpt around the first match, the matching words
            in bold on a terminal (plain when NO_COLOR is set or output is not a terminal),
            fitted to $COLUMNS, else the terminal's width, else 80. Needs no server.
            """,
        arguments: [
            Argument(name: "QUERY", help: "The words to find (the arguments joined by spaces).", repeats: true)
        ],
        options: [SearchCommand.limitOption],
        exitStatus: """
            0 success (also with no matches, said on standard error), 64 usage error,
            66 the history cannot be read.
            """)

    static let history = CommandSpec(
        name: HistoryCommand.name, overview: "The saved chats.", usage: .subcommands(optional: true),
        subcommands: [
            Row(label: "list", help: "List the saved chats, most recently updated first (the\ndefault)."),
            Row(label: "show ID", help: "Print one chat's messages as saved."),
        ],
        notes: """
            The history is kept in $XDG_DATA_HOME/sybil/client/chats.sqlite. `sybil history
            <subcommand> --help` says more.
            """)

    static let historyList = CommandSpec(
        name: HistoryCommand.name + " list", overview: "List the saved chats, most recently updated first.",
        discussion: """
            Prints one line per chat: its id, when it was last updated (UTC, ISO 8601), its
            title and how many messages it holds.
            """,
        options: [HistoryCommand.listLimitOption],
        exitStatus: """
            0 success (also with nothing saved, said on standard error), 64 usage error,
            66 the history cannot be read.
            """)

    static let historyShow = CommandSpec(
        name: HistoryCommand.name + " show", overview: "Print one saved chat.", usage: .spelled,
        discussion: """
            Prints the title and times, then each message under its role (You, Assistant with
            its model, System), replies as saved (rendered Markdown on a terminal). A reply that
            was stopped, failed or was still arriving when last saved is marked so.
            """,
        arguments: [Argument(name: "ID", help: "The chat's id, as `sybil history list` prints it.")],
        exitStatus: "0 success, 64 usage error, 66 no chat has that id or the history cannot be read.")
}

extension SearchCommand {
    /// `--limit N`.
    static let limitOption = OptionSpec.integer(
        "--limit", range: 1...SQLiteChatHistory.maximumSearchLimit, default: 100,
        help: "Print at most N hits ({range}, default {default}); past\nthat, standard error says to refine the query.")
}

extension HistoryCommand {
    /// `--limit N` of `history list`.
    static let listLimitOption = OptionSpec.integer(
        "--limit", range: 1...10_000, default: 20, help: "List at most N chats ({range}, default {default}).")
}
