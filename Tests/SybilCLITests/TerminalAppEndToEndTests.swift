import Foundation
import SybilTesting
import Testing

/// The terminal app end to end: `scripts/e2e/terminal_app.py` runs the built `sybil` in a
/// pseudo-terminal with pyte as the emulator against the embedded server (data in a temporary
/// XDG_DATA_HOME): a chat reply streams in, an Agent room message is confirmed, an attachment
/// card is previewed with `v` and exported with `e`, a workspace session takes a message,
/// search opens the chat, a Quick Question opens in a chat, a resize redraws, Ctrl+Z suspends
/// and SIGCONT redraws, Ctrl+D quits with 0 and the terminal is restored; a relaunch lists the
/// saved chat and Ctrl+C twice quits; against `sybil serve`, focus-in replays the Agent room
/// and Ctrl+R lists a chat another process saved. Builds nothing: skipped, saying why, when
/// the binary, python3, pexpect or pyte is missing.
@Suite("Terminal app end to end", .timeLimit(.minutes(5)))
struct TerminalAppEndToEndTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let binary = root.appendingPathComponent(".build/debug/sybil").path
    static let hasBinary = FileManager.default.isExecutableFile(atPath: binary)
    /// The first `python3` on `PATH` (then `/usr/bin/python3`) that has pexpect and pyte.
    static let python: String? = {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        let candidates = path.split(separator: ":").map { "\($0)/python3" } + ["/usr/bin/python3"]
        return candidates.first { candidate in
            FileManager.default.isExecutableFile(atPath: candidate)
                && ChildProcess.run(candidate, ["-c", "import pexpect, pyte"], discardStandardError: true).status == 0
        }
    }()
    static let hasPython = python != nil

    @Test(
        "chat, Agent room, workspace, search, resize, quit and relaunch in a pseudo-terminal",
        .enabled(if: hasBinary, "needs .build/debug/sybil (swift build --product sybil)"),
        .enabled(if: hasPython, "needs python3 with pexpect and pyte (pip install pexpect pyte)"))
    func fullSession() async throws {
        let script = Self.root.appendingPathComponent("scripts/e2e/terminal_app.py").path
        let python = try #require(Self.python)
        let (status, output) = await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: ChildProcess.run(python, [script, Self.binary])) }.start()
        }
        #expect(status == 0, "\(output)")
        #expect(output.contains("passed"), "\(output)")
    }
}
