/// The parser, generated from the declaration: `--name VALUE`, `--name=VALUE`, flags, `--` to
/// end the options, and positional arguments. `-h`/`--help` asks for help as soon as it is
/// read. Short options are not clustered: `-ch` is an unknown option, not `-c -h`.
extension CommandSpec {
    /// The options struct filled from `arguments`, and the positional arguments; `nil` when
    /// help was asked for. Unknown options, missing values, a value on a flag, a number outside
    /// its option's range, a second value for an option that does not repeat and more
    /// positional arguments than declared are usage errors naming the option or argument.
    func parse(_ arguments: [String]) throws(UsageError) -> ParsedArguments<Options>? {
        let options = allOptions
        var byName: [String: Int] = [:]
        for (index, option) in options.enumerated() {
            for name in option.names { byName[name] = index }
        }
        var parsed = ParsedArguments<Options>(command: name)
        for option in options { option.initialize?(&parsed.options) }
        var given = Set<Int>()
        var remaining = arguments[...]
        var optionsEnded = false
        while let argument = remaining.popFirst() {
            if optionsEnded || argument == "-" || !argument.hasPrefix("-") {
                try append(positional: argument, to: &parsed)
                continue
            }
            if argument == "--" {
                optionsEnded = true
                continue
            }
            var spelled = argument
            var inlineValue: String?
            if argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") {
                spelled = String(argument[..<equals])
                inlineValue = String(argument[argument.index(after: equals)...])
            }
            guard let index = byName[spelled] else {
                throw UsageError(command: name, message: "unknown option '\(spelled)'")
            }
            let option = options[index]
            let about = option.about
            if case .help = option.binding { return nil }
            if case .flag(let apply) = option.binding {
                guard inlineValue == nil else {
                    throw UsageError(command: name, message: "\(spelled) takes no value, got '\(argument)'")
                }
                apply(&parsed.options)
                continue
            }
            guard let value = inlineValue ?? remaining.popFirst() else {
                throw UsageError(command: name, message: "\(spelled) needs a value (\(about.valueName ?? "VALUE"))")
            }
            if !about.repeatable, given.contains(index) {
                throw UsageError(command: name, message: "\(spelled) may be given once, got a second value '\(value)'")
            }
            given.insert(index)
            switch option.binding {
            case .integer(let store):
                let range = about.kind.range
                guard let number = Int(value), range.contains(number) else {
                    throw UsageError(
                        command: name,
                        message:
                            "\(spelled) needs a whole number from \(range.lowerBound) to \(range.upperBound), got '\(value)'"
                    )
                }
                store(&parsed.options, number)
            case .text(let store): store(&parsed.options, value)
            case .help, .flag: break
            }
        }
        return parsed
    }

    private func append(positional: String, to parsed: inout ParsedArguments<Options>) throws(UsageError) {
        if !arguments.contains(where: \.repeats), parsed.positionals.count == arguments.count {
            let message =
                switch arguments.count {
                case 0: "takes no arguments, got '\(positional)'"
                case 1: "takes one \(arguments[0].name), got another: '\(positional)'"
                default: "takes \(arguments.map(\.name).joined(separator: " ")), got another: '\(positional)'"
                }
            throw UsageError(command: name, message: message)
        }
        parsed.positionals.append(positional)
    }
}

extension OptionHelp.Kind {
    /// An integer option's range (`Int.min...Int.max` for the others, which never ask).
    fileprivate var range: ClosedRange<Int> {
        if case .integer(let range) = self { return range }
        return Int.min...Int.max
    }
}
