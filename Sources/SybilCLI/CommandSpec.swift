/// A command declared once: its name, texts, arguments and options, each option bound to a
/// property of the command's `Options` struct. Both the parser (``parse(_:)``, in
/// `CommandSpec+Parsing.swift`, which returns the struct filled) and the `--help` text
/// (``help``, in `CommandSpec+Help.swift`) are produced from it, so they cannot drift apart.
struct CommandSpec<Options: CommandOptions>: Sendable {
    typealias Argument = CommandArgument
    typealias Row = CommandRow
    typealias Usage = CommandUsage

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
    var options: [OptionSpec<Options>] = []
    /// The EXIT STATUS section's text.
    var exitStatus: String?

    /// The options as parsed and shown: the declared ones, then `-h, --help` if not among them.
    var allOptions: [OptionSpec<Options>] {
        options.contains { $0.names.contains("--help") } || (subcommands.isEmpty == false && options.isEmpty)
            ? options : options + [.help]
    }
}

/// A positional argument, for the usage line and the ARGUMENTS section.
struct CommandArgument: Sendable, Hashable {
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

/// How a command's usage line is written.
enum CommandUsage: Sendable {
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
struct CommandRow: Sendable, Hashable {
    /// `send TEXT`.
    let label: String
    /// What it does.
    let help: String
}
