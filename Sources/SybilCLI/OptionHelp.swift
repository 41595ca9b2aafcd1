import Foundation

/// What an option is, apart from where its value goes: its spellings, its kind and its help.
/// ``OptionSpec`` holds one; the help text and the checks over every command read it.
///
/// The help line may say `{range}` and `{default}`; they are filled from the declaration (an
/// integer option's range `1 to 100`, its default), so the text cannot drift from the parser.
/// Explicit line breaks in the help are kept; continuation lines line up under the first.
struct OptionHelp: Sendable, Hashable {
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
    /// The default shown for `{default}`.
    let defaultValue: String?
    /// Whether it may be given more than once (each value kept, in order). A flag may always
    /// repeat; a value option that does not is a usage error the second time.
    let repeatable: Bool
    /// The help, with `{range}` and `{default}` filled in by ``helpText``.
    let help: String

    /// The name used in messages: the long spelling.
    var name: String { names.last ?? "" }

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
}
