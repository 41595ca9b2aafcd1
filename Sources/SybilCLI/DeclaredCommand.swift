/// A command's declaration whatever its options type, for what looks at every command at
/// once: the checks over all declarations, and the dispatch tables.
protocol DeclaredCommand: Sendable {
    /// The full name, `sybil agent send`.
    var name: String { get }
    /// The whole `--help` text.
    var help: String { get }
    /// Whether it is made of subcommands.
    var hasSubcommands: Bool { get }
    /// Every option it reads, `-h, --help` included.
    var optionHelp: [OptionHelp] { get }
    /// Parses `arguments` and drops what was read: `false` when help was asked for.
    func check(_ arguments: [String]) throws(UsageError) -> Bool
}

extension CommandSpec: DeclaredCommand {
    var hasSubcommands: Bool { !subcommands.isEmpty }
    var optionHelp: [OptionHelp] { allOptions.map(\.about) }

    func check(_ arguments: [String]) throws(UsageError) -> Bool {
        try parse(arguments) != nil
    }
}
