import SybilTesting
import Testing

@testable import SybilCLI

@Suite("sybil breathe", .timeLimit(.minutes(2)))
struct BreatheCommandTests {
    static let small = ["COLUMNS": "20", "LINES": "6"]

    @Test(arguments: [["breathe", "--help"], ["breathe", "--frames", "2", "-h"]])
    func helpIsPrintedVerbatim(arguments: [String]) async throws {
        let test = TestIO()
        #expect(await test.run(arguments) == 0)
        #expect(test.stdout == (try golden("breathe-help.txt")))
        #expect(test.stdout == BreatheCommand.spec.help)
    }

    @Test func topLevelHelpListsBreathe() async throws {
        let test = TestIO()
        #expect(await test.run("--help") == 0)
        #expect(test.stdout.contains("  breathe                 Breathe along with"))
    }

    @Test func framesArePrintedPlainForScripts() async throws {
        let test = TestIO(environment: Self.small)
        #expect(await test.run("breathe", "--frames", "2", "--seconds", "8", "--light") == 0)
        let lines = test.stdout.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == 2 * 6 + 1)
        #expect(lines[0] == "frame 1/2  0.00 s  breathe in")
        #expect(lines[6] == "frame 2/2  4.00 s  hold")
        #expect(lines.allSatisfy { $0.isEmpty || $0.hasPrefix("frame") || $0.count == 20 })
        #expect(!test.stdout.contains("\u{1B}"))
        #expect(test.stdout.contains("~"))
    }

    @Test func coloursOnATerminalUnlessNoColor() async throws {
        let colored = TestIO(environment: Self.small)
        let status = try await BreatheCommand.run(
            ["--frames", "1"], io: colored.io, isTerminal: true, clock: ManualClock())
        #expect(status == .success)
        #expect(colored.stdout.contains("\u{1B}[0;38;2;"))
        let plain = TestIO(environment: Self.small.merging(["NO_COLOR": "1"]) { $1 })
        _ = try await BreatheCommand.run(["--frames", "1"], io: plain.io, isTerminal: true, clock: ManualClock())
        #expect(!plain.stdout.contains("\u{1B}"))
    }

    @Test(
        arguments: [
            (["--seconds", "0"], "--seconds needs a whole number from 1 to 3600, got '0'"),
            (["--seconds", "3601"], "--seconds needs a whole number from 1 to 3600, got '3601'"),
            (["--frames", "0"], "--frames needs a whole number from 1 to 10000, got '0'"),
            (["--frames", "10001"], "--frames needs a whole number from 1 to 10000, got '10001'"),
            (["--fast"], "unknown option '--fast'"),
            (["now"], "takes no arguments, got 'now'"),
            ([], "standard output is not a terminal; use --frames N to print frames"),
        ])
    func usageErrors(arguments: [String], message: String) async {
        let test = TestIO()
        #expect(await test.run(["breathe"] + arguments) == 64)
        #expect(test.stderr == "sybil breathe: \(message)\nRun 'sybil breathe --help' for usage.\n")
        #expect(test.stdout == "")
    }

    @Test(arguments: [["--seconds", "1"], ["--seconds", "3600"], ["--frames", "1"], ["--frames", "10000"]])
    func boundaryValuesAreAccepted(arguments: [String]) async throws {
        let test = TestIO(environment: Self.small)
        let clock = ManualClock()
        // Frames are printed, never animated (an option is given once: a second --frames is an error).
        let printed = arguments.contains("--frames") ? arguments : arguments + ["--frames", "1"]
        let run = Task {
            try await BreatheCommand.run(printed, io: test.io, isTerminal: false, clock: clock)
        }
        #expect(try await run.value == .success)
    }

    @Test func gridSizeFromTheEnvironmentWithinItsBounds() {
        #expect(TerminalOutput(environment: [:], isTerminal: false, size: nil).size == (80, 24))
        #expect(
            TerminalOutput(environment: ["COLUMNS": "10", "LINES": "5"], isTerminal: false, size: nil).size == (10, 5))
        #expect(
            TerminalOutput(environment: ["COLUMNS": "9", "LINES": "4"], isTerminal: false, size: nil).size == (80, 24))
        #expect(
            TerminalOutput(environment: ["COLUMNS": "1000", "LINES": "500"], isTerminal: false, size: nil).size == (
                1_000, 500
            ))
        #expect(
            TerminalOutput(environment: ["COLUMNS": "1001", "LINES": "501"], isTerminal: false, size: nil).size == (
                80, 24
            ))
        #expect(
            TerminalOutput(environment: ["COLUMNS": "wide", "LINES": ""], isTerminal: false, size: nil).size == (80, 24)
        )
    }

    @Test func aTerminalsOwnSizeCountsUnlessTheEnvironmentSaysOtherwise() {
        let reported = (columns: 132, rows: 40)
        #expect(TerminalOutput(environment: [:], isTerminal: true, size: reported).size == (132, 40))
        #expect(TerminalOutput(environment: [:], isTerminal: false, size: reported).size == (80, 24))
        #expect(TerminalOutput(environment: ["COLUMNS": "100"], isTerminal: true, size: reported).size == (100, 40))
        #expect(TerminalOutput(environment: [:], isTerminal: true, size: (4, 2)).size == (10, 5))
        #expect(TerminalOutput(environment: [:], isTerminal: true, size: nil).isStyled)
        #expect(!TerminalOutput(environment: ["NO_COLOR": "1"], isTerminal: true, size: nil).isStyled)
        #expect(TerminalOutput(environment: ["NO_COLOR": ""], isTerminal: true, size: nil).isStyled)
        #expect(!TerminalOutput(environment: [:], isTerminal: false, size: nil).isStyled)
    }

    @Test func animationRunsOnTheAlternateScreenUntilTheTimeIsUp() async throws {
        let test = TestIO(environment: Self.small)
        let clock = ManualClock()
        let run = Task {
            try await BreatheCommand.run(["--seconds", "1"], io: test.io, isTerminal: true, clock: clock)
        }
        await test.waitForOutput(containing: "1 s left")
        #expect(test.stdout.hasPrefix(BreatheAnimation.enterScreen))
        #expect(await clock.waitForSleepers())
        clock.advance(by: .seconds(1))
        #expect(try await run.value == .success)
        #expect(test.stdout.contains("0 s left"))
        #expect(test.stdout.hasSuffix(BreatheAnimation.leaveScreen))
    }

    @Test func terminationRestoresTheScreen() async throws {
        let test = TestIO(environment: Self.small)
        let clock = ManualClock()
        let run = Task {
            try await BreatheCommand.run(["--seconds", "60"], io: test.io, isTerminal: true, clock: clock)
        }
        await test.waitForOutput(containing: "60 s left")
        test.terminate()
        #expect(try await run.value == .success)
        #expect(test.stdout.hasSuffix(BreatheAnimation.leaveScreen))
        #expect(!test.stdout.contains("59 s left"))
    }
}
