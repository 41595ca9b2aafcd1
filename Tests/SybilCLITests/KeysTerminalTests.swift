import Foundation
import SybilTesting
import Testing

/// `sybil keys set` on a terminal: the built `sybil` in a pseudo-terminal (pexpect) asks for the
/// key, does not echo what is typed, takes Backspace, and leaves the terminal as it found it
/// (`stty -a` after it still says `echo` and `icanon`). Builds nothing: skipped, saying why,
/// when the binary or python3 with pexpect is missing.
@Suite("sybil keys set on a terminal", .timeLimit(.minutes(2)))
struct KeysTerminalTests {
    static let python: String? = {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        let candidates = path.split(separator: ":").map { "\($0)/python3" } + ["/usr/bin/python3"]
        return candidates.first { candidate in
            FileManager.default.isExecutableFile(atPath: candidate)
                && ChildProcess.run(candidate, ["-c", "import pexpect"], discardStandardError: true).status == 0
        }
    }()

    static let script = """
        import sys, pexpect
        child = pexpect.spawn("/bin/sh", ["-c", '"$SYBIL" keys set typed; echo "status=$?"; stty -a'],
                              encoding="utf-8", timeout=30)
        child.expect_exact("Key for 'typed' (not shown): ")
        child.send("typed-sec")
        child.send("\\x7f")
        child.send("ret\\r")
        child.expect(pexpect.EOF)
        sys.stdout.write(child.before)
        """

    @Test(
        "the key is not echoed and the terminal is restored",
        .enabled(if: KeysSecretServiceTests.hasBinary, "needs .build/debug/sybil (swift build --product sybil)"),
        .enabled(if: python != nil, "needs python3 with pexpect (pip install pexpect)"))
    func typedKeyIsNotEchoed() async throws {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent(
            "sybil-keys-tty-\(UUID().uuidString.prefix(8))"
        ).path
        defer { try? FileManager.default.removeItem(atPath: home) }
        let environment = [
            "HOME": home, "XDG_DATA_HOME": home + "/data", "SYBIL": KeysSecretServiceTests.binary,
            "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin", "TERM": "xterm",
        ]
        let python = try #require(Self.python)
        let (status, output) = await withCheckedContinuation { continuation in
            Thread {
                continuation.resume(
                    returning: ChildProcess.run(python, ["-c", Self.script], environment: environment))
            }.start()
        }
        #expect(status == 0, "\(output)")
        #expect(output.contains("status=0"), "\(output)")
        #expect(!output.contains("typed-se"), "the key was echoed: \(output)")
        let settings = output.split(whereSeparator: { $0.isWhitespace || $0 == ";" })
        #expect(settings.contains("echo") && settings.contains("icanon") && settings.contains("isig"), "\(output)")
        let stored = try String(contentsOfFile: home + "/data/sybil/keys/typed.key", encoding: .utf8)
        #expect(stored == "typed-seret")
    }
}
