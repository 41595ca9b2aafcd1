import Testing

@testable import SybilCLI

/// The parser and help generated from a declaration, on a small made-up command whose options
/// are a struct the parser fills.
@Suite("Command declarations", .timeLimit(.minutes(2)))
struct CommandSpecTests {
    /// A colour two flags choose between.
    enum Shade: Sendable, Equatable { case dark, light }

    /// Options several commands would share, declared over their own struct.
    struct Shared: CommandOptions {
        var server: String?
        var retries = 0
    }

    struct Options: CommandOptions {
        var limit = 0
        var raw = false
        var tags: [String] = []
        var name: String?
        var host = ""
        var frames: Int?
        var shade = Shade.dark
        /// `--add` and `--photo` values, in the order given.
        var files: [String] = []
        var shared = Shared()
    }

    static let shared: [OptionSpec<Shared>] = [
        .text("--server", valueName: "URL", into: \.server, help: "A server."),
        .integer("--retries", into: \.retries, range: 0...5, default: 2, help: "Retries ({range}; default {default})."),
    ]

    static let spec = CommandSpec<Options>(
        name: "sybil try", overview: "Try the parser.",
        arguments: [CommandArgument(name: "FILE", help: "A file.", optional: true)],
        options: [
            .integer(
                "-n", "--limit", into: \.limit, range: 1...100, default: 20,
                help: "At most N ({range}; default {default})."),
            .flag("--raw", into: \.raw, help: "Raw."),
            .repeatable("--tag", valueName: "TAG", into: \.tags, help: "A tag\n(repeatable)."),
            .text("--name", valueName: "NAME", into: \.name, help: "A name."),
        ],
        exitStatus: "0 success.")

    /// Every kind of binding, for the tests of the binding itself.
    static let every = CommandSpec<Options>(
        name: "sybil every", overview: "Every kind.",
        options: [
            .text("--host", valueName: "HOST", into: \.host, default: "127.0.0.1", help: "Host (default {default})."),
            .integer("--frames", into: \.frames, range: 1...10, help: "Frames ({range})."),
            .flag("--dark", into: \.shade, setting: .dark, help: "Dark."),
            .flag("--light", into: \.shade, setting: .light, help: "Light."),
            .repeatable("--add", valueName: "FILE", into: \.files, as: { "file:" + $0 }, help: "A file."),
            .repeatable("--photo", valueName: "FILE", into: \.files, as: { "photo:" + $0 }, help: "A photo."),
        ] + shared.within(\.shared))

    private func parse(_ arguments: String...) throws(UsageError) -> ParsedArguments<Options>? {
        try Self.spec.parse(arguments)
    }

    private func message(_ arguments: String..., spec: CommandSpec<Options> = spec) -> String? {
        do {
            _ = try spec.parse(arguments)
            return nil
        } catch {
            #expect(error.command == spec.name)
            return error.message
        }
    }

    @Test func valuesFlagsAndPositionals() throws {
        let parsed = try #require(try parse("--limit", "5", "--raw", "f.txt", "--name=x=y"))
        #expect(parsed.options.limit == 5)
        #expect(parsed.options.raw)
        #expect(parsed.options.name == "x=y")
        #expect(parsed.positionals == ["f.txt"])
        let short = try #require(try parse("-n", "7"))
        #expect(short.options.limit == 7)
    }

    @Test func absentOptionsGiveTheirDefaults() throws {
        let parsed = try #require(try parse())
        #expect(parsed.options.limit == 20)
        #expect(!parsed.options.raw)
        #expect(parsed.options.name == nil && parsed.options.tags.isEmpty)
        let every = try #require(try Self.every.parse([])).options
        #expect(every.host == "127.0.0.1")
        #expect(every.frames == nil)
        #expect(every.shade == .dark)
        #expect(every.files.isEmpty)
        // A default of options lifted from a shared struct is written too.
        #expect(every.shared.retries == 2 && every.shared.server == nil)
    }

    @Test func integersAreCheckedAtTheirBoundaries() throws {
        #expect(try parse("--limit", "1")?.options.limit == 1)
        #expect(try parse("--limit=100")?.options.limit == 100)
        #expect(message("--limit", "0") == "--limit needs a whole number from 1 to 100, got '0'")
        #expect(message("--limit=101") == "--limit needs a whole number from 1 to 100, got '101'")
        #expect(message("-n", "x") == "-n needs a whole number from 1 to 100, got 'x'")
        #expect(message("--limit", "99999999999999999999") != nil)
        #expect(message("--limit", "5.0") != nil)
        #expect(message("--limit", " 5") != nil)
    }

    @Test func rangeErrorsNameTheOptionOfEveryIntegerBinding() {
        // An optional integer and one lifted from a shared struct are checked the same way.
        #expect(message("--frames", "11", spec: Self.every) == "--frames needs a whole number from 1 to 10, got '11'")
        #expect(message("--frames", "0", spec: Self.every) == "--frames needs a whole number from 1 to 10, got '0'")
        #expect(message("--retries=6", spec: Self.every) == "--retries needs a whole number from 0 to 5, got '6'")
        #expect(message("--retries", "-1", spec: Self.every) == "--retries needs a whole number from 0 to 5, got '-1'")
    }

    @Test func eachKindOfBindingFillsItsProperty() throws {
        let options = try #require(
            try Self.every.parse([
                "--host", "::1", "--frames", "10", "--light", "--add", "a", "--server=http://s", "--retries", "0",
            ])
        ).options
        #expect(options.host == "::1")
        #expect(options.frames == 10)
        #expect(options.shade == .light)
        #expect(options.files == ["file:a"])
        #expect(options.shared.server == "http://s")
        #expect(options.shared.retries == 0)
        // Nothing else was touched.
        #expect(options.limit == 0 && !options.raw && options.tags.isEmpty && options.name == nil)
    }

    @Test func theLastOfSeveralFlagsOnOnePropertyWins() throws {
        #expect(try Self.every.parse(["--light", "--dark"])?.options.shade == .dark)
        #expect(try Self.every.parse(["--dark", "--light"])?.options.shade == .light)
    }

    @Test func unknownOptionsAreErrorsNamingThem() {
        #expect(message("--nope") == "unknown option '--nope'")
        #expect(message("--nope=1") == "unknown option '--nope'")
        #expect(message("-x") == "unknown option '-x'")
        // Short options are not clustered.
        #expect(message("-nh") == "unknown option '-nh'")
    }

    @Test func aMissingValueNamesTheOption() {
        #expect(message("--name") == "--name needs a value (NAME)")
        #expect(message("--raw", "--limit") == "--limit needs a value (N)")
    }

    @Test func aFlagTakesNoValue() {
        #expect(message("--raw=yes") == "--raw takes no value, got '--raw=yes'")
        #expect(message("--light=1", spec: Self.every) == "--light takes no value, got '--light=1'")
    }

    @Test func doubleDashEndsTheOptions() throws {
        let parsed = try #require(try Self.spec.parse(["--raw", "--", "--limit"]))
        #expect(parsed.positionals == ["--limit"])
        #expect(parsed.options.limit == 20)
        // After `--`, even `--help` is an argument.
        #expect(try Self.spec.parse(["--", "--help"])?.positionals == ["--help"])
        // A lone `-` is an argument (standard input).
        #expect(try parse("-")?.positionals == ["-"])
    }

    @Test func repeatedFlagsAndRepeatableValuesKeepTheirOrder() throws {
        let parsed = try #require(try parse("--raw", "--raw", "--tag", "a", "--tag=b", "--tag", "a"))
        #expect(parsed.options.raw)
        #expect(parsed.options.tags == ["a", "b", "a"])
    }

    @Test func aValueOptionGivenTwiceIsRefused() {
        #expect(message("--name", "a", "--name", "b") == "--name may be given once, got a second value 'b'")
        #expect(message("--name", "a", "--name=a") == "--name may be given once, got a second value 'a'")
        // Either spelling counts: the second is named as it was spelled.
        #expect(message("--limit", "1", "-n", "2") == "-n may be given once, got a second value '2'")
        #expect(
            message("--host", "a", "--host", "b", spec: Self.every)
                == "--host may be given once, got a second value 'b'")
        #expect(message("--frames", "1", "--frames", "2", spec: Self.every) != nil)
        #expect(message("--server", "a", "--server", "b", spec: Self.every) != nil)
    }

    @Test func twoRepeatableOptionsOnOneListKeepTheCommandLineOrder() throws {
        let parsed = try #require(try Self.every.parse(["--add", "a", "--photo", "p", "--add", "b"]))
        #expect(parsed.options.files == ["file:a", "photo:p", "file:b"])
    }

    @Test func tooManyArgumentsNameTheArgument() {
        #expect(message("a", "b") == "takes one FILE, got another: 'b'")
        let none = CommandSpec<NoOptions>(name: "sybil none", overview: "None.")
        #expect(throws: UsageError(command: "sybil none", message: "takes no arguments, got 'x'")) {
            try none.parse(["x"])
        }
    }

    @Test func helpWinsWhereItIsRead() throws {
        #expect(try parse("--limit", "5", "-h") == nil)
        #expect(try parse("--help", "--nope") == nil)
        // An error before it is still an error.
        #expect(message("--nope", "--help") == "unknown option '--nope'")
        // A value is taken as it is, even when it looks like an option.
        #expect(try parse("--name", "--help")?.options.name == "--help")
    }

    @Test func anotherHelpTextKeepsTheBinding() throws {
        let renamed = CommandSpec<Options>(
            name: "sybil renamed", overview: "Renamed.",
            options: [Self.spec.options[1].withHelp("Print it raw.")])
        #expect(try renamed.parse(["--raw"])?.options.raw == true)
        #expect(renamed.help.contains("--raw                   Print it raw."))
    }

    @Test func helpIsGeneratedFromTheDeclaration() {
        #expect(
            Self.spec.help == """
                OVERVIEW: Try the parser.

                USAGE: sybil try [<options>] [FILE]

                ARGUMENTS:
                  FILE                    A file.

                OPTIONS:
                  -n, --limit N           At most N (1 to 100; default 20).
                  --raw                   Raw.
                  --tag TAG               A tag
                                          (repeatable).
                  --name NAME             A name.
                  -h, --help              Show this help.

                EXIT STATUS:
                  0 success.

                """)
        #expect(Self.every.help.contains("--host HOST             Host (default 127.0.0.1)."))
        #expect(Self.every.help.contains("--retries N             Retries (0 to 5; default 2)."))
    }

    @Test func aLabelThatReachesTheHelpColumnGetsItsOwnLine() {
        let rows = HelpLayout.section(
            "OPTIONS", [(String(repeating: "x", count: 23), "fits"), (String(repeating: "y", count: 24), "wraps")])
        #expect(
            rows == """
                OPTIONS:
                  \(String(repeating: "x", count: 23)) fits
                  \(String(repeating: "y", count: 24))
                                          wraps
                """)
    }
}
