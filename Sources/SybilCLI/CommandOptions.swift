/// A command's options as one value: a struct whose stored properties the parser fills
/// through the key paths its ``OptionSpec``s are bound to. `init()` gives every option's
/// "not given" value (`false`, `nil`, `[]`); declared defaults are written by the parser.
protocol CommandOptions: Sendable {
    init()
}

/// The options of a command that has none of its own (one made of subcommands).
struct NoOptions: CommandOptions {}
