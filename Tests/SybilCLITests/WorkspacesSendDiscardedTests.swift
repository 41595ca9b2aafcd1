import Foundation
import SybilClient
import SybilCore
import SybilServer
import SybilTesting
import Testing

@testable import SybilCLI

/// `sybil workspaces send` when an earlier message left the outbox for good because its
/// staged attachment copy is gone: its text is quoted on standard error before this run's
/// message replaces the draft, the desktop is not blamed for a cause on this device, and the
/// exit status (65) says a message was lost although this run's was accepted.
@Suite("sybil workspaces send: an earlier message discarded", .timeLimit(.minutes(2)))
struct WorkspacesSendDiscardedTests {
    private static let token = "cli-token"

    @Test func theDiscardedMessagesTextIsPrintedBeforeTheDraftIsReplaced() async throws {
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("sybil-cli-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: data) }
        try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
        let notes = data.appendingPathComponent("notes.txt")
        try Data("notes\n".utf8).write(to: notes)
        let staging = WorkspaceOutboxStaging.directory(besideOutboxIn: data.path + "/sybil/client")

        let closed = try RefusingPort()
        let offline = TestIO(environment: [
            "SYBIL_API_URL": closed.url.absoluteString, "SYBIL_TOKEN": Self.token, "XDG_DATA_HOME": data.path,
        ])
        let status = await offline.run(
            "workspaces", "send", "desk-1/proj-app/sess-43", "Lost\u{1B}]0;x\u{07} words", "--attach", notes.path)
        #expect(status == 69, "\(offline.stderr)")
        withExtendedLifetime(closed) {}
        let folders = try FileManager.default.contentsOfDirectory(atPath: staging)
        let folder = try #require(folders.first)
        try FileManager.default.removeItem(atPath: staging + "/" + folder + "/0")

        var options = SybilServerOptions(token: Self.token)
        options.pace = .zero
        let server = try ReferenceServer(options: options)
        defer { Task { await server.shutdown() } }
        let online = TestIO(environment: [
            "SYBIL_API_URL": server.baseURL.absoluteString, "SYBIL_TOKEN": Self.token, "XDG_DATA_HOME": data.path,
        ])
        #expect(await online.run("workspaces", "send", "sess-43", "Second") == 65, "\(online.stderr)")
        #expect(online.stdout == "accepted by desk-1: desk-1/proj-app/sess-43\n")
        #expect(
            online.stderr.contains("the earlier message that was not sent was: \"Lost\u{FFFD}]0;x\u{FFFD} words\""),
            "quoted, sanitized: \(online.stderr)")
        #expect(online.stderr.contains("could not be sent from this device"), "\(online.stderr)")
        #expect(!online.stderr.contains("The desktop did not take"), "\(online.stderr)")
        #expect(!online.stderr.contains("\u{1B}"), "no escape reaches the terminal")
    }
}
