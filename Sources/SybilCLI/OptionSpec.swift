import Foundation

/// One option of a command, declared once: the parser reads it and the `--help` text shows it.
///
/// The help line may say `{range}` and `{default}`; they are filled from the declaration (an
/// integer option's range `1 to 100`, its default), so the text cannot drift from the parser.
/// Explicit line breaks in the help are kept; continuation lines line up under the first.
struct OptionSpec: Sendable, Hashable {
    /// How an option takes its value.
    enum Kind: Sendable, Hashable {
        /// No value: `--raw`.
        case flag
        /// Any text: `--model NAME`.
        case text
        /// A whole number in a range: `--limit N`.
        case integer(ClosedRange<Int>)
    }

    /// Its spellings, short before long: `["-c", "--continue"]`.
    let names: [String]
    /// The value's placeholder in help (`N`, `FILE`); `nil` for a flag.
    let valueName: String?
    /// What the value is.
    let kind: Kind
    /// The default shown for `{default}` (and, for an integer, the parsed value when absent).
    let defaultValue: String?
    /// Whether it may be given more than once (each value kept, in order). A flag may always
    /// repeat; a value option that does not is a usage error the second time.
    let repeatable: Bool
    /// The help, with `{range}` and `{default}` filled in by ``helpText``.
    let help: String

    /// The name used in messages and as the key of parsed values: the long spelling.
    var name: String { names.last ?? "" }

    /// A flag: `--raw`, `-c, --continue`.
    static func flag(_ names: String..., help: String) -> OptionSpec {
        OptionSpec(names: names, valueName: nil, kind: .flag, defaultValue: nil, repeatable: true, help: help)
    }

    /// An option with a text value.
    static func text(
        _ names: String..., valueName: String, default defaultValue: String? = nil, repeatable: Bool = false,
        help: String
    ) -> OptionSpec {
        OptionSpec(
            names: names, valueName: valueName, kind: .text, defaultValue: defaultValue, repeatable: repeatable,
            help: help)
    }

    /// An option with a whole number in `range`; `default` is what parsing gives when it is absent.
    static func integer(
        _ names: String..., valueName: String = "N", range: ClosedRange<Int>, default defaultValue: Int? = nil,
        help: String
    ) -> OptionSpec {
        precondition(defaultValue.map(range.contains) ?? true, "the default of \(names) is outside its range")
        return OptionSpec(
            names: names, valueName: valueName, kind: .integer(range), defaultValue: defaultValue.map(String.init),
            repeatable: false, help: help)
    }

    /// The same option with another help text (the parser reads it the same way).
    func withHelp(_ help: String) -> OptionSpec {
        OptionSpec(
            names: names, valueName: valueName, kind: kind, defaultValue: defaultValue, repeatable: repeatable,
            help: help)
    }

    /// `-o, --output FILE`.
    var label: String {
        names.joined(separator: ", ") + (valueName.map { " " + $0 } ?? "")
    }

    /// The help with `{range}` and `{default}` filled in.
    var helpText: String {
        var text = help
        if case .integer(let range) = kind {
            text = text.replacingOccurrences(of: "{range}", with: "\(range.lowerBound) to \(range.upperBound)")
        }
        if let defaultValue { text = text.replacingOccurrences(of: "{default}", with: defaultValue) }
        return text
    }

    /// `-h, --help`, which every command has.
    static let help = flag("-h", "--help", help: "Show this help.")
}
