#if canImport(Glibc)
    import Foundation
    import SybilTesting
    import Testing

    @testable import SybilCLI

    /// Standard output or error that cannot be written (closed with `2>&-`, sent to a full disk)
    /// is said and reflected in the exit status, never a crash: the built `sybil` runs under
    /// `/bin/sh` with its streams redirected. Skipped, saying why, when the binary is missing.
    @Suite("sybil with standard streams that cannot be written", .timeLimit(.minutes(2)))
    struct StandardStreamFailureTests {
        static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        static let binary = root.appendingPathComponent(".build/debug/sybil").path

        /// `sybil` run by `/bin/sh -c "exec \"$0\" ARGUMENTS REDIRECTIONS"`: its status and what
        /// reached the streams not redirected.
        private func sybil(_ command: String) -> (status: Int32, output: String)? {
            guard FileManager.default.isExecutableFile(atPath: Self.binary) else {
                print("skipped: \(Self.binary) is not built (swift build)")
                return nil
            }
            let home = FileManager.default.temporaryDirectory.appendingPathComponent("sybil-streams-\(UUID())").path
            defer { try? FileManager.default.removeItem(atPath: home) }
            return ChildProcess.run(
                "/bin/sh", ["-c", "exec \"$0\" \(command)", Self.binary],
                environment: ["HOME": home, "XDG_DATA_HOME": home + "/data", "XDG_CONFIG_HOME": home + "/config"])
        }

        @Test func outputToAFullDiskIsSaidAndExits73() throws {
            guard FileManager.default.fileExists(atPath: "/dev/full") else {
                print("skipped: this system has no /dev/full")
                return
            }
            guard let run = sybil("--help >/dev/full") else { return }
            #expect(run.status == 73, "\(run.output)")
            #expect(
                run.output == "sybil: standard output could not be written: No space left on device.\n", "\(run.output)"
            )
        }

        @Test func aClosedStandardErrorIsNoCrash() throws {
            guard let usage = sybil("--no-such-option 2>&-") else { return }
            #expect(usage.status == 64, "a usage error, not a crash: \(usage.output)")
            guard let listed = sybil("history list 2>&- >/dev/full") else { return }
            #expect(listed.status == 73 || listed.status == 0, "no crash: \(listed.status)")
        }

        @Test func aCommandThatFailedKeepsItsOwnStatus() async {
            let io = CommandIO(
                readChunks: { _, _ in }, writeOutput: { _ in }, writeError: { _ in },
                outputFailure: { "No space left on device" })
            #expect(await SybilCommandLine.run(["--no-such-option"], io: io) == 64)
            #expect(await SybilCommandLine.run(["--version"], io: io) == 73)
        }
    }
#endif
