import Foundation
import SybilStore
import SybilTesting
import Testing

/// `sybil keys` against a real Secret Service: the built `sybil` runs under `dbus-run-session`
/// with `gnome-keyring-daemon` unlocked on a fresh keyring in a temporary home, so no keyring of
/// the person running the tests is touched. Builds nothing: skipped, saying why, when the
/// binary, `dbus-run-session` or `gnome-keyring-daemon` is missing (`scripts/lib.sh` installs
/// them on Debian).
@Suite("sybil keys in the Secret Service", .timeLimit(.minutes(3)))
struct KeysSecretServiceTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let binary = root.appendingPathComponent(".build/debug/sybil").path
    static let hasBinary = FileManager.default.isExecutableFile(atPath: binary)
    static let dbusRunSession = program("dbus-run-session")
    static let keyringDaemon = program("gnome-keyring-daemon")

    /// The first `name` on `PATH`, then in `/usr/bin`.
    static func program(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        return (path.split(separator: ":").map { "\($0)/\(name)" } + ["/usr/bin/\(name)"]).first {
            FileManager.default.isExecutableFile(atPath: $0)
        }
    }

    static let secret = "sk-service-5e4d3c2b1a"

    private func withHome(_ body: (String) async throws -> Void) async throws {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent(
            "sybil-keyring-\(UUID().uuidString.prefix(8))"
        ).path
        try FileManager.default.createDirectory(
            atPath: home + "/runtime", withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        defer { try? FileManager.default.removeItem(atPath: home) }
        try await body(home)
    }

    private func environment(home: String) -> [String: String] {
        [
            "HOME": home, "XDG_DATA_HOME": home + "/data", "XDG_CONFIG_HOME": home + "/config",
            "XDG_RUNTIME_DIR": home + "/runtime",
            "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin",
        ]
    }

    /// Runs off the cooperative pool: the child blocks its thread until it exits.
    private func run(_ executable: String, _ arguments: [String], environment: [String: String]) async -> (
        status: Int32, output: String
    ) {
        await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: ChildProcess.run(executable, arguments, environment: environment)) }
                .start()
        }
    }

    @Test(
        "set, list and remove go to the Secret Service, and a file key moves there once",
        .enabled(if: hasBinary, "needs .build/debug/sybil (swift build --product sybil)"),
        .enabled(if: dbusRunSession != nil, "needs dbus-run-session (Debian: dbus-daemon, dbus-bin)"),
        .enabled(if: keyringDaemon != nil, "needs gnome-keyring-daemon (Debian: gnome-keyring)"))
    func secretService() async throws {
        try await withHome { home in
            let files = FileKeyStore.standard(environment: environment(home: home))
            try files.setKey("legacy-secret-0", named: "legacy")
            let script = """
                printf pw | gnome-keyring-daemon --unlock --components=secrets >/dev/null || exit 90
                printf '%s\\n' "$KEY" | "$SYBIL" keys set k; echo "set=$?"
                "$SYBIL" keys list; echo "list=$?"
                "$SYBIL" keys remove k; echo "remove=$?"
                "$SYBIL" keys remove k; echo "again=$?"
                "$SYBIL" keys list; echo "list=$?"
                """
            var environment = environment(home: home)
            environment["SYBIL"] = Self.binary
            environment["KEY"] = Self.secret
            let (status, output) = await run(
                try #require(Self.dbusRunSession), ["--", "/bin/sh", "-c", script], environment: environment)
            #expect(status == 0, "\(output)")
            #expect(output.contains("set=0"), "\(output)")
            #expect(
                output.contains("sybil keys set: Moved 1 key from \(files.location) into the Secret Service."),
                "\(output)")
            #expect(output.contains("sybil keys set: stored 'k' in the Secret Service."), "\(output)")
            #expect(output.contains("k\nlegacy\n"), "\(output)")
            #expect(output.contains("sybil keys list: 2 keys in the Secret Service."), "\(output)")
            #expect(output.contains("remove=0"), "\(output)")
            #expect(output.contains("again=66"), "\(output)")
            #expect(output.contains("sybil keys list: 1 key in the Secret Service."), "\(output)")
            #expect(!output.contains("Keys are kept in the files"), "\(output)")
            #expect(!output.contains(Self.secret), "\(output)")
            #expect(!output.contains("legacy-secret-0"), "\(output)")
            // Moved, not copied: the file store is empty, and the key never went there.
            #expect(try files.keyNames() == [])
        }
    }

    @Test(
        "a session bus with no one answering leaves keys in the file store, with a notice",
        .enabled(if: hasBinary, "needs .build/debug/sybil (swift build --product sybil)"))
    func busWithoutService() async throws {
        try await withHome { home in
            var environment = environment(home: home)
            environment["DBUS_SESSION_BUS_ADDRESS"] = "unix:path=\(home)/runtime/no-bus"
            let (status, output) = await run(Self.binary, ["keys", "list"], environment: environment)
            #expect(status == 0, "\(output)")
            let files = FileKeyStore.standard(environment: environment)
            #expect(output.contains("Keys are kept in \(files.location)"), "\(output)")
        }
    }
}
