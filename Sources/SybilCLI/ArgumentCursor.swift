/// Walks a command's arguments: options (`--name VALUE`, `--name=VALUE`, flags), `--` to end
/// options, and positional arguments. Unknown options are usage errors naming the command.
struct ArgumentCursor {
    private var remaining: ArraySlice<String>
    private var optionsEnded = false
    /// The command's full name, for messages (e.g. `sybil debug sse`).
    let command: String

    init(_ arguments: [String], command: String) {
        remaining = arguments[...]
        self.command = command
    }

    /// One parsed argument.
    enum Token: Equatable {
        case option(name: String, inlineValue: String?)
        case positional(String)
    }

    /// The next token, or `nil` at the end.
    mutating func next() -> Token? {
        guard let argument = remaining.popFirst() else { return nil }
        if optionsEnded { return .positional(argument) }
        if argument == "--" {
            optionsEnded = true
            return next()
        }
        if argument.hasPrefix("--"), argument.count > 2 {
            if let equals = argument.firstIndex(of: "=") {
                return .option(
                    name: String(argument[..<equals]), inlineValue: String(argument[argument.index(after: equals)...]))
            }
            return .option(name: argument, inlineValue: nil)
        }
        if argument.hasPrefix("-"), argument.count > 1 {
            return .option(name: argument, inlineValue: nil)
        }
        return .positional(argument)
    }

    /// The value of `option`: its inline `=VALUE` or the next argument.
    mutating func value(for option: String, inlineValue: String?) throws(UsageError) -> String {
        if let inlineValue { return inlineValue }
        guard let value = remaining.popFirst() else {
            throw UsageError(command: command, message: "\(option) needs a value")
        }
        return value
    }

    /// The value of `option` as a whole number within `range`.
    mutating func integer(for option: String, inlineValue: String?, in range: ClosedRange<Int>) throws(UsageError)
        -> Int
    {
        let text = try value(for: option, inlineValue: inlineValue)
        guard let number = Int(text), range.contains(number) else {
            throw UsageError(
                command: command,
                message:
                    "\(option) must be a whole number from \(range.lowerBound) to \(range.upperBound), got '\(text)'")
        }
        return number
    }

    /// The error for an option this command does not have.
    func unknown(_ option: String) -> UsageError {
        UsageError(command: command, message: "unknown option '\(option)'")
    }
}

/// A mistake on the command line; printed with a pointer to the command's help.
/// What a command that reads at most one FILE was asked to do.
enum FileCommandRequest: Equatable {
    /// `-h` or `--help` was given: print the help and do nothing else.
    case help
    /// Run on FILE (`nil` or `-` for standard input).
    case run(file: String?)
}

extension ArgumentCursor {
    /// Walks the arguments of a command that takes options and at most one FILE. `-h` and
    /// `--help` win at once; every other option goes to `option` (name and inline value),
    /// which returns `false` for one it does not know.
    static func fileCommand(
        _ arguments: [String], command: String,
        option: (inout ArgumentCursor, String, String?) throws(UsageError) -> Bool = { _, _, _ in false }
    ) throws(UsageError) -> FileCommandRequest {
        var cursor = ArgumentCursor(arguments, command: command)
        var file: String?
        while let token = cursor.next() {
            switch token {
            case .option(let name, _) where name == "-h" || name == "--help":
                return .help
            case .option(let name, let inlineValue):
                guard try option(&cursor, name, inlineValue) else { throw cursor.unknown(name) }
            case .positional(let argument):
                guard file == nil else {
                    throw UsageError(command: command, message: "takes one FILE, got another: '\(argument)'")
                }
                file = argument
            }
        }
        return .run(file: file)
    }
}

/// The question of `sybil ask` / `sybil quick`: the words joined by spaces, never blank.
func question(from words: [String], command: String) throws(UsageError) -> String {
    let question = words.joined(separator: " ")
    guard !question.allSatisfy(\.isWhitespace) else {
        throw UsageError(command: command, message: "needs a question, e.g. \(command) \"What is a cold start?\"")
    }
    return question
}

struct UsageError: Error, Equatable {
    let command: String
    let message: String

    /// `sybil debug sse: MESSAGE` + a hint line.
    var text: String {
        "\(command): \(message)\nRun '\(command) --help' for usage.\n"
    }
}
