import Testing

@testable import SybilCLI

/// `sybil app` and `sybil` on a terminal: routing, options and the refusal off a terminal
/// (the app itself is driven in a pseudo-terminal by `TerminalAppEndToEndTests`).
@Suite("sybil app", .timeLimit(.minutes(2)))
struct TerminalAppCommandTests {
    @Test func theAppsOptionsGivenToSybilOpenTheApp() {
        #expect(TerminalAppCommand.takes(["--in-memory"]))
        #expect(TerminalAppCommand.takes(["--api-url", "http://127.0.0.1:1"]))
        #expect(TerminalAppCommand.takes(["--api-url=http://127.0.0.1:1"]))
        #expect(!TerminalAppCommand.takes(["--help"]))
        #expect(!TerminalAppCommand.takes(["--version"]))
        #expect(!TerminalAppCommand.takes(["ask", "--in-memory"]))
        #expect(!TerminalAppCommand.takes([]))
    }

    @Test func offATerminalTheAppSaysWhatToUseInstead() async {
        let test = TestIO()
        let status = await test.run("app", "--in-memory")
        #expect(status == 64)
        #expect(
            test.stderr
                == "sybil app: standard input and output must be a terminal; for scripts use sybil ask, sybil agent send or sybil workspaces send\n"
        )
        #expect(test.stdout.isEmpty)
    }

    @Test func withoutATerminalSybilAloneStillPrintsItsHelp() async throws {
        let test = TestIO()
        #expect(await test.run([]) == 0)
        #expect(test.stdout == (try golden("sybil-help.txt")))
    }

    @Test func optionsAreCheckedBeforeAnything() async {
        let test = TestIO()
        #expect(await test.run("app", "--api-url", "ftp://x") == 64)
        #expect(test.stderr.contains("--api-url needs an http: or https: URL, got 'ftp://x'"))
        let both = TestIO()
        #expect(await both.run("app", "--in-memory", "--api-url", "http://127.0.0.1:1") == 64)
        #expect(both.stderr.contains("--in-memory is for the embedded server, not --api-url"))
        let extra = TestIO()
        #expect(await extra.run("app", "hello") == 64)
        #expect(extra.stderr.contains("takes no arguments, got 'hello'"))
    }
}
