import SybilStore

/// The declarations of `sybil search` and `sybil history`: options, arguments and help.
extension SearchCommand {
    static let spec = CommandSpec<Options>(
        name: SearchCommand.name, overview: "Search the saved chats and web searches.",
        discussion: """
            Searches the local history ($XDG_DATA_HOME/sybil/client/chats.sqlite): conversation
            titles, messages, and saved web-search queries and answers. Each word matches as a
            word prefix ("plan" finds "planning"), ignoring case and accents; all words must
            match. Chinese and Japanese text matches anywhere. Prints one line per hit, best
            match first: the title (a web search's query, after "[web] "), then an excerpt
            around the first match, the matching words in bold on a terminal (plain when
            NO_COLOR is set or output is not a terminal), fitted to $COLUMNS, else the
            terminal's width, else 80. With --json, one JSON array of the hits instead
            (docs/cli-json.md). Needs no server.
            """,
        arguments: [
            CommandArgument(name: "QUERY", help: "The words to find (the arguments joined by spaces).", repeats: true)
        ],
        options: [
            .integer(
                "--limit", into: \.limit, range: 1...SQLiteChatHistory.maximumSearchLimit, default: 100,
                help:
                    "Print at most N hits ({range}, default {default}); past\nthat, standard error says to refine the query."
            ),
            .flag("--json", into: \.json, help: "Print the hits as one JSON array."),
        ],
        exitStatus: """
            0 success (also with no matches, said on standard error), 64 usage error,
            66 the history cannot be read.
            """)

    /// The options of `sybil search`.
    struct Options: CommandOptions {
        var limit = 0
        var json = false
    }
}

extension HistoryCommand {
    static let spec = CommandSpec<NoOptions>(
        name: HistoryCommand.name, overview: "The saved chats and web searches.", usage: .subcommands(optional: true),
        subcommands: [
            CommandRow(
                label: "list",
                help: "List the saved chats and web searches, most recently updated\nfirst (the default)."),
            CommandRow(label: "show ID", help: "Print one chat's messages, or one web search, as saved."),
            CommandRow(label: "export", help: "Print (or write to a file) every saved chat and web search."),
            CommandRow(label: "delete ID", help: "Remove one chat or web search from the history and search."),
        ],
        notes: """
            The history is kept in $XDG_DATA_HOME/sybil/client/chats.sqlite. `sybil history
            <subcommand> --help` says more.
            """)

    static let listSpec = CommandSpec<ListOptions>(
        name: HistoryCommand.name + " list",
        overview: "List the saved chats and web searches, most recently updated first.",
        discussion: """
            Prints one line per chat: its id, when it was last updated (UTC, ISO 8601), its
            title and how many messages it holds; and one per web search (`sybil ask --web`):
            its id, when it was saved, "[web]", its query and how many sources it lists. With
            --json, one JSON array of them instead, each with its "kind" (docs/cli-json.md).
            """,
        options: [
            .integer(
                "--limit", into: \.limit, range: 1...10_000, default: 20,
                help: "List at most N chats and web searches ({range}, default {default})."),
            json(\.json),
        ],
        exitStatus: """
            0 success (also with nothing saved, said on standard error), 64 usage error,
            66 the history cannot be read.
            """)

    static let showSpec = CommandSpec<ShowOptions>(
        name: HistoryCommand.name + " show", overview: "Print one saved chat or web search.", usage: .spelled,
        discussion: """
            Prints the title and times, the system prompt the chat was started with, then each
            message under its role (You, Assistant with its model, System), replies as saved
            (rendered Markdown on a terminal). A reply that was stopped, failed or was still
            arriving when last saved is marked so. A web search is printed with its query,
            answer and numbered sources (URLs as text). --markdown prints it as a Markdown
            document with the text as written; --json as one JSON object (docs/cli-json.md).
            """,
        arguments: [
            CommandArgument(name: "ID", help: "A chat's or web search's id, as `sybil history list` prints it.")
        ],
        options: [
            json(\.json), .flag("--markdown", into: \.markdown, help: "Print the chat as a Markdown document."),
        ],
        exitStatus: """
            0 success, 64 usage error, 66 no chat or web search has that id or the history
            cannot be read.
            """)

    static let exportSpec = CommandSpec<ExportOptions>(
        name: HistoryCommand.name + " export", overview: "Print or write every saved chat and web search.",
        usage: .spelled,
        discussion: """
            Every chat and web search, newest first as `sybil history list` orders them: as
            Markdown documents (as `sybil history show ID --markdown` prints them) separated by
            `---` lines, or with --json as one JSON array (docs/cli-json.md). With -o the file
            is replaced atomically: it holds the old content or the whole export, never part
            of it. The counts go to standard error.
            """,
        options: [
            json(\.json),
            .text(
                "-o", "--output", valueName: "FILE", into: \.output,
                help: "Write to FILE (replaced atomically) instead of standard output."),
        ],
        exitStatus: """
            0 success (also with nothing saved), 64 usage error, 66 the history cannot be
            read, 73 the file cannot be written.
            """)

    static let deleteSpec = CommandSpec<NoOptions>(
        name: HistoryCommand.name + " delete", overview: "Remove one saved chat or web search.",
        usage: .spelled,
        discussion: """
            Removes the chat, its messages and their search entries (or the web search and its
            search entry) in one transaction: after it neither `sybil history` nor `sybil
            search` finds them, and an interrupted delete leaves them whole.
            """,
        arguments: [
            CommandArgument(name: "ID", help: "A chat's or web search's id, as `sybil history list` prints it.")
        ],
        exitStatus: """
            0 deleted, 64 usage error, 66 no chat or web search has that id or the history
            cannot be read, 73 it cannot be written.
            """)

    /// `--json` of `history list`, `show` and `export`, bound to `path`.
    private static func json<Options: CommandOptions>(_ path: WritableKeyPath<Options, Bool> & Sendable)
        -> OptionSpec<Options>
    {
        .flag("--json", into: path, help: "Print JSON (shapes in docs/cli-json.md).")
    }

    /// The options of `sybil history list`.
    struct ListOptions: CommandOptions {
        var limit = 0
        var json = false
    }

    /// The options of `sybil history show`.
    struct ShowOptions: CommandOptions {
        var json = false
        var markdown = false
    }

    /// The options of `sybil history export`.
    struct ExportOptions: CommandOptions {
        var json = false
        var output: String?
    }
}
