/// One option of a command, declared once and bound to where its value goes: a key path of
/// the command's ``CommandOptions`` struct. The parser writes through the binding and the
/// `--help` text shows ``about``, so the two cannot drift apart.
///
/// The kinds: a flag sets a `Bool` (or any value, ``flag(_:_:setting:help:)``); a text option
/// a `String?` (or a `String` with a default); an integer option an `Int` with its default, or
/// an `Int?`, after checking its range; a repeatable option appends to an array, in the order
/// given. No reflection: each binding is a closure over a `Sendable` key path.
struct OptionSpec<Options: CommandOptions>: Sendable {
    /// Where a value goes once read.
    enum Binding: Sendable {
        /// `-h, --help`: parsing stops and help is shown.
        case help
        /// A flag: applied each time it is given.
        case flag(@Sendable (inout Options) -> Void)
        /// A text value (or a repeatable one's next value).
        case text(@Sendable (inout Options, String) -> Void)
        /// A whole number, already within the option's range.
        case integer(@Sendable (inout Options, Int) -> Void)
    }

    /// Its spellings, kind and help.
    let about: OptionHelp
    /// Where its value goes.
    let binding: Binding
    /// Writes the declared default before anything is parsed; `nil` when `init()`'s value is it.
    let initialize: (@Sendable (inout Options) -> Void)?

    /// Its spellings, short before long.
    var names: [String] { about.names }
    /// The long spelling, used in messages.
    var name: String { about.name }

    /// The same option with another help text (the parser reads it the same way).
    func withHelp(_ help: String) -> OptionSpec {
        OptionSpec(
            about: OptionHelp(
                names: about.names, valueName: about.valueName, kind: about.kind, defaultValue: about.defaultValue,
                repeatable: about.repeatable, help: help),
            binding: binding, initialize: initialize)
    }

    /// The same option bound inside a larger options struct: the options several commands
    /// share (the server's, say) are declared once over their own struct and lifted into each
    /// command's through the property that holds them.
    func within<Outer: CommandOptions>(_ path: WritableKeyPath<Outer, Options> & Sendable) -> OptionSpec<Outer> {
        let lifted: OptionSpec<Outer>.Binding
        switch binding {
        case .help: lifted = .help
        case .flag(let apply): lifted = .flag { apply(&$0[keyPath: path]) }
        case .text(let store): lifted = .text { store(&$0[keyPath: path], $1) }
        case .integer(let store): lifted = .integer { store(&$0[keyPath: path], $1) }
        }
        var liftedInitialize: (@Sendable (inout Outer) -> Void)?
        if let initialize {
            liftedInitialize = { initialize(&$0[keyPath: path]) }
        }
        return OptionSpec<Outer>(about: about, binding: lifted, initialize: liftedInitialize)
    }
}

extension OptionSpec {
    /// `-h, --help`, which every command has.
    static var help: OptionSpec { help("Show this help.") }

    /// `-h, --help` with its own help line.
    static func help(_ text: String) -> OptionSpec {
        OptionSpec(
            about: OptionHelp(
                names: ["-h", "--help"], valueName: nil, kind: .flag, defaultValue: nil, repeatable: true, help: text),
            binding: .help, initialize: nil)
    }

    /// A flag that sets `path` to `true`: `--raw`, `-c, --continue`.
    static func flag(_ names: String..., into path: WritableKeyPath<Options, Bool> & Sendable, help: String)
        -> OptionSpec
    {
        flag(names, path, setting: true, help: help)
    }

    /// A flag that sets `path` to `value`; of several flags on one property the last given
    /// wins (`--dark`, `--light`).
    static func flag<Value: Sendable>(
        _ names: String..., into path: WritableKeyPath<Options, Value> & Sendable, setting value: Value, help: String
    ) -> OptionSpec {
        flag(names, path, setting: value, help: help)
    }

    private static func flag<Value: Sendable>(
        _ names: [String], _ path: WritableKeyPath<Options, Value> & Sendable, setting value: Value, help: String
    ) -> OptionSpec {
        OptionSpec(
            about: OptionHelp(
                names: names, valueName: nil, kind: .flag, defaultValue: nil, repeatable: true, help: help),
            binding: .flag { $0[keyPath: path] = value }, initialize: nil)
    }

    /// An option with a text value, `nil` when absent: `--model NAME`. `shownDefault` is what
    /// the command uses then, for `{default}` in the help.
    static func text(
        _ names: String..., valueName: String, into path: WritableKeyPath<Options, String?> & Sendable,
        shownDefault: String? = nil, help: String
    ) -> OptionSpec {
        OptionSpec(
            about: OptionHelp(
                names: names, valueName: valueName, kind: .text, defaultValue: shownDefault, repeatable: false,
                help: help),
            binding: .text { $0[keyPath: path] = $1 }, initialize: nil)
    }

    /// An option with a text value and a default, shown for `{default}`: `--host HOST`.
    static func text(
        _ names: String..., valueName: String, into path: WritableKeyPath<Options, String> & Sendable,
        default defaultValue: String, help: String
    ) -> OptionSpec {
        OptionSpec(
            about: OptionHelp(
                names: names, valueName: valueName, kind: .text, defaultValue: defaultValue, repeatable: false,
                help: help),
            binding: .text { $0[keyPath: path] = $1 }, initialize: { $0[keyPath: path] = defaultValue })
    }

    /// A text option that may be given more than once, each value appended in order:
    /// `--attach FILE`.
    static func repeatable(
        _ names: String..., valueName: String, into path: WritableKeyPath<Options, [String]> & Sendable, help: String
    ) -> OptionSpec {
        repeatable(names, valueName: valueName, path, as: { $0 }, help: help)
    }

    /// A repeatable text option whose values are made into `Element`s on one list, so that
    /// several options keep the order they were given in (`--attach a --photo b`).
    static func repeatable<Element: Sendable>(
        _ names: String..., valueName: String, into path: WritableKeyPath<Options, [Element]> & Sendable,
        as element: @escaping @Sendable (String) -> Element, help: String
    ) -> OptionSpec {
        repeatable(names, valueName: valueName, path, as: element, help: help)
    }

    private static func repeatable<Element: Sendable>(
        _ names: [String], valueName: String, _ path: WritableKeyPath<Options, [Element]> & Sendable,
        as element: @escaping @Sendable (String) -> Element, help: String
    ) -> OptionSpec {
        OptionSpec(
            about: OptionHelp(
                names: names, valueName: valueName, kind: .text, defaultValue: nil, repeatable: true, help: help),
            binding: .text { $0[keyPath: path].append(element($1)) }, initialize: nil)
    }

    /// A whole number in `range` with a default, written when the option is absent:
    /// `--limit N`.
    static func integer(
        _ names: String..., valueName: String = "N", into path: WritableKeyPath<Options, Int> & Sendable,
        range: ClosedRange<Int>, default defaultValue: Int, help: String
    ) -> OptionSpec {
        precondition(range.contains(defaultValue), "the default of \(names) is outside its range")
        return OptionSpec(
            about: OptionHelp(
                names: names, valueName: valueName, kind: .integer(range), defaultValue: String(defaultValue),
                repeatable: false, help: help),
            binding: .integer { $0[keyPath: path] = $1 }, initialize: { $0[keyPath: path] = defaultValue })
    }

    /// A whole number in `range`, `nil` when absent: `--frames N`. `shownDefault` is what the
    /// command uses then, for `{default}` in the help (`--port`, whose absence matters).
    static func integer(
        _ names: String..., valueName: String = "N", into path: WritableKeyPath<Options, Int?> & Sendable,
        range: ClosedRange<Int>, shownDefault: Int? = nil, help: String
    ) -> OptionSpec {
        precondition(shownDefault.map(range.contains) ?? true, "the default of \(names) is outside its range")
        return OptionSpec(
            about: OptionHelp(
                names: names, valueName: valueName, kind: .integer(range), defaultValue: shownDefault.map(String.init),
                repeatable: false, help: help),
            binding: .integer { $0[keyPath: path] = $1 }, initialize: nil)
    }
}

extension Array {
    /// Each option bound inside a larger options struct (``OptionSpec/within(_:)``).
    func within<Inner, Outer: CommandOptions>(
        _ path: WritableKeyPath<Outer, Inner> & Sendable
    ) -> [OptionSpec<Outer>] where Element == OptionSpec<Inner> {
        map { $0.within(path) }
    }
}
