import Testing

@testable import SybilCLI

/// The parser and help generated from a declaration, on a small made-up command.
@Suite("Command declarations", .timeLimit(.minutes(2)))
struct CommandSpecTests {
    static let limit = OptionSpec.integer(
        "-n", "--limit", range: 1...100, default: 20, help: "At most N ({range}; default {default}).")
    static let raw = OptionSpec.flag("--raw", help: "Raw.")
    static let tag = OptionSpec.text("--tag", valueName: "TAG", repeatable: true, help: "A tag\n(repeatable).")
    static let name = OptionSpec.text("--name", valueName: "NAME", help: "A name.")
    static let spec = CommandSpec(
        name: "sybil try", overview: "Try the parser.",
        arguments: [CommandSpec.Argument(name: "FILE", help: "A file.", optional: true)],
        options: [limit, raw, tag, name], exitStatus: "0 success.")

    private func parse(_ arguments: String...) throws(UsageError) -> ParsedArguments? {
        try Self.spec.parse(arguments)
    }

    private func message(_ arguments: String...) -> String? {
        do {
            _ = try Self.spec.parse(arguments)
            return nil
        } catch {
            #expect(error.command == "sybil try")
            return error.message
        }
    }

    @Test func valuesFlagsAndPositionals() throws {
        let parsed = try #require(try parse("--limit", "5", "--raw", "f.txt", "--name=x=y"))
        #expect(parsed.integer(Self.limit) == 5)
        #expect(parsed.given(Self.raw))
        #expect(parsed.text(Self.name) == "x=y")
        #expect(parsed.positionals == ["f.txt"])
        let short = try #require(try parse("-n", "7"))
        #expect(short.integer(Self.limit) == 7)
    }

    @Test func absentOptionsGiveTheirDefaults() throws {
        let parsed = try #require(try parse())
        #expect(parsed.integer(Self.limit) == 20)
        #expect(!parsed.given(Self.limit) && !parsed.given(Self.raw))
        #expect(parsed.text(Self.name) == nil && parsed.texts(Self.tag).isEmpty)
    }

    @Test func integersAreCheckedAtTheirBoundaries() throws {
        #expect(try parse("--limit", "1")?.integer(Self.limit) == 1)
        #expect(try parse("--limit=100")?.integer(Self.limit) == 100)
        #expect(message("--limit", "0") == "--limit needs a whole number from 1 to 100, got '0'")
        #expect(message("--limit=101") == "--limit needs a whole number from 1 to 100, got '101'")
        #expect(message("-n", "x") == "-n needs a whole number from 1 to 100, got 'x'")
        #expect(message("--limit", "99999999999999999999") != nil)
        #expect(message("--limit", "5.0") != nil)
        #expect(message("--limit", " 5") != nil)
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
    }

    @Test func doubleDashEndsTheOptions() throws {
        let parsed = try #require(try Self.spec.parse(["--raw", "--", "--limit"]))
        #expect(parsed.positionals == ["--limit"])
        #expect(parsed.integer(Self.limit) == 20)
        // After `--`, even `--help` is an argument.
        #expect(try Self.spec.parse(["--", "--help"])?.positionals == ["--help"])
        // A lone `-` is an argument (standard input).
        #expect(try parse("-")?.positionals == ["-"])
    }

    @Test func repeatedFlagsAndRepeatableValues() throws {
        let parsed = try #require(try parse("--raw", "--raw", "--tag", "a", "--tag=b"))
        #expect(parsed.given(Self.raw))
        #expect(parsed.texts(Self.tag) == ["a", "b"])
        #expect(parsed.occurrences(of: [Self.tag, Self.name]).map(\.value) == ["a", "b"])
        #expect(message("--name", "a", "--name", "b") == "--name may be given once, got a second value 'b'")
        #expect(message("--limit", "1", "-n", "2") == "-n may be given once, got a second value '2'")
    }

    @Test func occurrencesKeepTheCommandLineOrder() throws {
        let parsed = try #require(try parse("--tag", "a", "--name", "n", "--tag", "b"))
        #expect(parsed.occurrences(of: [Self.tag, Self.name]).map(\.option.name) == ["--tag", "--name", "--tag"])
    }

    @Test func tooManyArgumentsNameTheArgument() {
        #expect(message("a", "b") == "takes one FILE, got another: 'b'")
        let none = CommandSpec(name: "sybil none", overview: "None.")
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
        #expect(try parse("--name", "--help")?.text(Self.name) == "--help")
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
    }

    @Test func aLabelThatReachesTheHelpColumnGetsItsOwnLine() {
        let rows = CommandSpec.section(
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
