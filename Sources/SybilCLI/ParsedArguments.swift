/// What ``CommandSpec/parse(_:)`` read: the command's options struct, filled (integers
/// range-checked, absent options at their defaults), and the positional arguments.
struct ParsedArguments<Options: CommandOptions>: Sendable {
    /// The command's full name, for the commands' own usage errors.
    let command: String
    /// The options as given.
    var options = Options()
    /// The positional arguments, in order.
    var positionals: [String] = []

    /// A usage error for this command.
    func error(_ message: String) -> UsageError {
        UsageError(command: command, message: message)
    }
}
