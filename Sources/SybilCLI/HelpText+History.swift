/// The `--help` texts of `sybil search` and `sybil history`.
extension HelpText {
    static let search = """
        OVERVIEW: Search the saved chats and web searches.

        USAGE: sybil search [<options>] QUERY...

        Searches the local history ($XDG_DATA_HOME/sybil/client/chats.sqlite): conversation
        titles, messages, and saved web-search queries and answers. Each word matches as a
        word prefix ("plan" finds "planning"), ignoring case and accents; all words must
        match. Chinese and Japanese text matches anywhere. Prints one line per hit, best
        match first: the title, then an excerpt around the first match, the matching words
        in bold on a terminal (plain when NO_COLOR is set or output is not a terminal),
        fitted to $COLUMNS, else the terminal's width, else 80. Needs no server.

        ARGUMENTS:
          QUERY                   The words to find (the arguments joined by spaces).

        OPTIONS:
          --limit N               Print at most N hits (1 to 1000, default 100); past
                                  that, standard error says to refine the query.
          -h, --help              Show this help.

        EXIT STATUS:
          0 success (also with no matches, said on standard error), 64 usage error,
          66 the history cannot be read.

        """

    static let history = """
        OVERVIEW: The saved chats.

        USAGE: sybil history [<subcommand>] [<options>]

        SUBCOMMANDS:
          list                    List the saved chats, most recently updated first (the
                                  default).
          show ID                 Print one chat's messages as saved.

        The history is kept in $XDG_DATA_HOME/sybil/client/chats.sqlite. `sybil history
        <subcommand> --help` says more.

        """

    static let historyList = """
        OVERVIEW: List the saved chats, most recently updated first.

        USAGE: sybil history list [<options>]

        Prints one line per chat: its id, when it was last updated (UTC, ISO 8601), its
        title and how many messages it holds.

        OPTIONS:
          --limit N               List at most N chats (1 to 10000, default 20).
          -h, --help              Show this help.

        EXIT STATUS:
          0 success (also with nothing saved, said on standard error), 64 usage error,
          66 the history cannot be read.

        """

    static let historyShow = """
        OVERVIEW: Print one saved chat.

        USAGE: sybil history show ID

        Prints the title and times, then each message under its role (You, Assistant with
        its model, System), replies as saved (rendered Markdown on a terminal). A reply that
        was stopped, failed or was still arriving when last saved is marked so.

        ARGUMENTS:
          ID                      The chat's id, as `sybil history list` prints it.

        OPTIONS:
          -h, --help              Show this help.

        EXIT STATUS:
          0 success, 64 usage error, 66 no chat has that id or the history cannot be read.

        """
}
