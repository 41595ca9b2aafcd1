import Testing

@testable import SybilCLI

/// On a terminal that says it is dumb (`TERM=dumb`: an editor's shell buffer, a serial
/// console) the full-screen app would write cursor moves and screen switches that terminal
/// prints as litter; it says what to use instead and writes nothing else.
@Suite("sybil app on a dumb terminal", .timeLimit(.minutes(1)))
struct TerminalAppDumbTerminalTests {
    @Test func aDumbTerminalIsToldWhatToUseInstead() async throws {
        let test = TestIO(environment: ["TERM": "dumb"], terminal: (columns: 80, rows: 24))
        var io = test.io
        io.inputIsTerminal = true
        io.outputIsTerminal = true
        let status = try await TerminalAppCommand.run(["--in-memory"], io: io)
        #expect(status == .usage)
        #expect(
            test.stderr
                == "sybil app: this terminal (TERM=dumb) cannot show a full-screen app; use sybil ask, sybil agent send or sybil workspaces send\n"
        )
        #expect(test.stdout.isEmpty)
    }
}
