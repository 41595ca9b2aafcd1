/// The parser, generated from the declaration: `--name VALUE`, `--name=VALUE`, flags, `--` to
/// end the options, and positional arguments. `-h`/`--help` asks for help as soon as it is
/// read. Short options are not clustered: `-ch` is an unknown option, not `-c -h`.
extension CommandSpec {
    /// The parsed arguments, or `nil` when help was asked for. Unknown options, missing values,
    /// a value on a flag, a number outside its option's range, a second value for an option that
    /// does not repeat and more positional arguments than declared are usage errors naming the
    /// option or argument.
    func parse(_ arguments: [String]) throws(UsageError) -> ParsedArguments? {
        let options = allOptions
        var byName: [String: OptionSpec] = [:]
        for option in options {
            for name in option.names { byName[name] = option }
        }
        var parsed = ParsedArguments(command: name)
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
            guard let option = byName[spelled] else {
                throw UsageError(command: name, message: "unknown option '\(spelled)'")
            }
            if option.names.contains("--help") { return nil }
            switch option.kind {
            case .flag:
                guard inlineValue == nil else {
                    throw UsageError(command: name, message: "\(spelled) takes no value, got '\(argument)'")
                }
                parsed.record(option, value: "")
            case .text, .integer:
                guard let value = inlineValue ?? remaining.popFirst() else {
                    throw UsageError(
                        command: name, message: "\(spelled) needs a value (\(option.valueName ?? "VALUE"))")
                }
                if !option.repeatable, parsed.given(option) {
                    throw UsageError(
                        command: name, message: "\(spelled) may be given once, got a second value '\(value)'")
                }
                if case .integer(let range) = option.kind {
                    guard let number = Int(value), range.contains(number) else {
                        throw UsageError(
                            command: name,
                            message:
                                "\(spelled) needs a whole number from \(range.lowerBound) to \(range.upperBound), got '\(value)'"
                        )
                    }
                    parsed.record(option, value: String(number))
                } else {
                    parsed.record(option, value: value)
                }
            }
        }
        return parsed
    }

    private func append(positional: String, to parsed: inout ParsedArguments) throws(UsageError) {
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
