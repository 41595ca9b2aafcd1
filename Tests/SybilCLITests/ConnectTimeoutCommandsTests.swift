import Foundation
import SybilTesting
import Testing

@testable import SybilCLI

/// `SYBIL_CONNECT_TIMEOUT` bounds every command's connections, not only the chat commands'
/// (issue 28): over real loopback sockets, a listener whose accept queue is full never
/// answers the SYN, so each command below would otherwise wait for the client's default of
/// 30 s. Each ends with the timeout named in its message instead.
@Suite("SYBIL_CONNECT_TIMEOUT bounds every command", .timeLimit(.minutes(2)))
struct ConnectTimeoutCommandsTests {
    let home = FileManager.default.temporaryDirectory.appendingPathComponent(
        "sybil-cli-connect-timeout-\(UUID().uuidString)"
    ).path

    /// Runs `command --api-url URL arguments…` against a port that never accepts.
    func run(_ command: [String], _ arguments: String...) async throws -> (status: Int32, stderr: String) {
        let full = try FullBacklogPort()
        let test = TestIO(environment: [
            "XDG_DATA_HOME": home, "XDG_CONFIG_HOME": home, "HOME": "/nonexistent",
            "SYBIL_CONNECT_TIMEOUT": "0.05",
        ])
        let status = await test.run(command + ["--api-url", full.url.absoluteString] + arguments)
        withExtendedLifetime(full) {}
        return (status, test.stderr)
    }

    @Test func modelsGivesUpAtTheConnectTimeout() async throws {
        defer { try? FileManager.default.removeItem(atPath: home) }
        let (status, stderr) = try await run(["models"])
        #expect(status == 69, Comment(rawValue: stderr))
        #expect(stderr.contains("no connection within 0.05 seconds"), Comment(rawValue: stderr))
    }

    /// The capability probe that precedes an Agent room command is bounded too.
    @Test func agentSendGivesUpAtTheConnectTimeout() async throws {
        defer { try? FileManager.default.removeItem(atPath: home) }
        let (status, stderr) = try await run(["agent", "send"], "hello")
        #expect(status != 0, Comment(rawValue: stderr))
        #expect(stderr.contains("no connection within 0.05 seconds"), Comment(rawValue: stderr))
        // No connection was made, so the message provably never left; it stays queued for Retry.
        #expect(stderr.contains("It never reached the server; Retry sends it."), Comment(rawValue: stderr))
        #expect(!stderr.contains("may or may not have arrived"), Comment(rawValue: stderr))
    }

    @Test func workspacesListGivesUpAtTheConnectTimeout() async throws {
        defer { try? FileManager.default.removeItem(atPath: home) }
        let (status, stderr) = try await run(["workspaces", "list"])
        #expect(status != 0, Comment(rawValue: stderr))
        #expect(stderr.contains("no connection within 0.05 seconds"), Comment(rawValue: stderr))
    }
}
