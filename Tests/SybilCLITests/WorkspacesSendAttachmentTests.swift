import Foundation
import SybilClient
import SybilCore
import SybilServer
import SybilTesting
import Testing

@testable import SybilCLI

/// `sybil workspaces send --attach` while the desktop cannot be reached, over real sockets:
/// the message and a copy of its attachment wait in the outbox, and the next run uploads the
/// copy first and sends the message once.
@Suite("sybil workspaces send --attach offline", .timeLimit(.minutes(2)))
struct WorkspacesSendAttachmentTests {
    private static let token = "cli-token"

    @Test func offlineAttachmentsAreKeptAndSentUploadsFirst() async throws {
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("sybil-cli-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: data) }
        try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
        let notes = data.appendingPathComponent("notes.txt")
        try Data("the notes as they were\n".utf8).write(to: notes)
        let staging = WorkspaceOutboxStaging.directory(besideOutboxIn: data.path + "/sybil/client")

        let closed = try RefusingPort()
        let offline = TestIO(environment: [
            "SYBIL_API_URL": closed.url.absoluteString, "SYBIL_TOKEN": Self.token, "XDG_DATA_HOME": data.path,
        ])
        let status = await offline.run(
            "workspaces", "send", "desk-1/proj-app/sess-43", "See", "the", "notes", "--attach", notes.path)
        #expect(status == 69)
        #expect(
            offline.stderr.contains(
                "the message and its 1 attachment are kept in the outbox and will be sent (uploads first) by the next 'sybil workspaces send' to this chat (or the app)"
            ), "\(offline.stderr)")
        withExtendedLifetime(closed) {}
        let stagedFolders = try FileManager.default.contentsOfDirectory(atPath: staging)
        #expect(stagedFolders.count == 1, "one message's copies are staged")
        // What is sent is the copy taken when the message was queued.
        try Data("changed after the send\n".utf8).write(to: notes)

        var options = SybilServerOptions(token: Self.token)
        options.pace = .zero
        let server = try ReferenceServer(options: options)
        defer { Task { await server.shutdown() } }
        let environment = [
            "SYBIL_API_URL": server.baseURL.absoluteString, "SYBIL_TOKEN": Self.token, "XDG_DATA_HOME": data.path,
        ]
        let online = TestIO(environment: environment)
        #expect(await online.run("workspaces", "send", "sess-43", "Second") == 0, "\(online.stderr)")
        #expect(online.stderr.contains("sending 1 earlier message(s) left in the outbox first"))
        #expect(!online.stderr.contains("not accepted"), "\(online.stderr)")

        let reader = TestIO(environment: environment)
        #expect(await reader.run("workspaces", "open", "sess-43", "--no-follow") == 0)
        let users = reader.stdout.split(separator: "\n").filter { $0.hasPrefix("[user") }.map {
            $0.split(separator: "] ", maxSplits: 1).last.map(String.init) ?? ""
        }
        #expect(users == ["See the notes", "Second"], "once each, in order")
        let left = (try? FileManager.default.contentsOfDirectory(atPath: staging)) ?? []
        #expect(left.isEmpty, "the staged copy is removed once the desktop accepted the message")
    }
}
