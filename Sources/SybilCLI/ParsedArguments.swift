/// What ``CommandSpec/parse(_:)`` read: each option's values in order, and the positional
/// arguments. Integers are already range-checked; an absent option gives its default.
struct ParsedArguments: Sendable {
    /// The command's full name, for the commands' own usage errors.
    let command: String
    /// The positional arguments, in order.
    var positionals: [String] = []
    private var values: [String: [String]] = [:]
    private var order: [(name: String, value: String)] = []

    init(command: String) {
        self.command = command
    }

    mutating func record(_ option: OptionSpec, value: String) {
        values[option.name, default: []].append(value)
        order.append((option.name, value))
    }

    /// The values of any of `options`, in the order given on the command line, each with the
    /// option it came with (`--attach a --photo b --attach c`).
    func occurrences(of options: [OptionSpec]) -> [(option: OptionSpec, value: String)] {
        order.compactMap { entry in
            options.first { $0.name == entry.name }.map { ($0, entry.value) }
        }
    }

    /// Whether `option` was given.
    func given(_ option: OptionSpec) -> Bool {
        values[option.name] != nil
    }

    /// The value of `option`, else its declared default.
    func text(_ option: OptionSpec) -> String? {
        values[option.name]?.last ?? option.defaultValue
    }

    /// Every value of a repeatable `option`, in order.
    func texts(_ option: OptionSpec) -> [String] {
        values[option.name] ?? []
    }

    /// The whole number of `option` (range-checked when parsed), else its declared default.
    func integer(_ option: OptionSpec) -> Int? {
        text(option).flatMap { Int($0) }
    }

    /// A usage error for this command.
    func error(_ message: String) -> UsageError {
        UsageError(command: command, message: message)
    }
}
