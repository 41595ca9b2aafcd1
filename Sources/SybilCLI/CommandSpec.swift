/// A command declared once: its name, texts, arguments and options. Both the parser
/// (``parse(_:)``, in `CommandSpec+Parsing.swift`) and the `--help` text (``help``, in
/// `CommandSpec+Help.swift`) are produced from it, so they cannot drift apart.
struct CommandSpec: Sendable {
    /// A positional argument, for the usage line and the ARGUMENTS section.
    struct Argument: Sendable, Hashable {
        /// `QUESTION`, `FILE`.
        let name: String
        /// The help line(s).
        let help: String
        /// Whether it may be left out (`[FILE]` in the usage line).
        var optional = false
        /// Whether it takes the rest of the words (`TEXT...`): any number are accepted.
        var repeats = false

        /// `[FILE]`, `TEXT...`.
        var usage: String {
            (optional ? "[\(name)]" : name) + (repeats ? "..." : "")
        }
    }

    /// How the usage line is written.
    enum Usage: Sendable {
        /// `NAME [<options>] ARGUMENTS`.
        case summary
        /// `NAME [--opt N] [--flag] ARGUMENTS`: every option but help spelled out.
        case spelled
        /// `NAME <subcommand> [<options>]`, for a command made of subcommands.
        case subcommands(optional: Bool)
        /// Written out, one line per form.
        case lines([String])
    }

    /// A row of a COMMANDS or SUBCOMMANDS section.
    struct Row: Sendable, Hashable {
        /// `send TEXT`.
        let label: String
        /// What it does.
        let help: String
    }

    /// The full name, `sybil agent send`, used in messages.
    let name: String
    /// One line after `OVERVIEW:`.
    let overview: String
    /// The usage line.
    var usage = Usage.summary
    /// Paragraphs between the usage line and the sections.
    var discussion: String?
    /// The title of the subcommand section (`COMMANDS` at the top level).
    var subcommandTitle = "SUBCOMMANDS"
    /// The subcommands, for a command made of them.
    var subcommands: [Row] = []
    /// Paragraphs after the subcommands.
    var notes: String?
    /// The positional arguments.
    var arguments: [Argument] = []
    /// The options, in help order; `-h, --help` is added at the end unless listed.
    var options: [OptionSpec] = []
    /// The EXIT STATUS section's text.
    var exitStatus: String?

    /// The options as parsed and shown: the declared ones, then `-h, --help` if not among them.
    var allOptions: [OptionSpec] {
        options.contains { $0.names.contains("--help") } || (subcommands.isEmpty == false && options.isEmpty)
            ? options : options + [.help]
    }
}

extension CommandSpec {
    /// Every command and subcommand `sybil` has, for tests that check all declarations at once.
    static var all: [CommandSpec] {
        [
            sybil, app, ask, quick, serve, agent, agentSend, agentTail, agentRetry, agentResendAll, agentDownload,
            workspaces, workspacesList, workspacesOpen, workspacesSend, search, history, historyList, historyShow,
            records, recordsAdd, recordsList, recordsSync, breathe, debug, debugEnvelope, debugSSE, debugWebSocketEcho,
            keys, keysSet, keysList, keysRemove, profile, profileAdd, profileList, profileUse, profileRemove, models,
        ]
    }
}
