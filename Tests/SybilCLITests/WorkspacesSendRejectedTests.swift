import Foundation
import SybilClient
import SybilCore
import SybilServer
import SybilStore
import SybilTesting
import SybilWire
import Testing

@testable import SybilCLI

/// `sybil workspaces send` when messages an earlier run left in the outbox are rejected for
/// good by the desktop as they are resent: standard error gives each one's reason and whole
/// text (sanitized), and the exit status is 65 although this run's message was accepted.
@Suite("sybil workspaces send: earlier messages rejected", .timeLimit(.minutes(2)))
struct WorkspacesSendRejectedTests {
    private static let token = "cli-token"
    private static let chat = WorkspaceChatKey(desktopId: "desk-1", projectId: "proj-app", sessionId: "sess-43")

    /// Leaves `entries` in the outbox under `data`, as an earlier run whose desktop could not
    /// be reached does.
    private static func leave(_ entries: [WorkspaceOutboxEntry], inOutboxUnder data: URL) async throws {
        let outbox = try WorkspaceOutbox(store: try FileKeyValueStore(directory: data.path + "/sybil/client"))
        try await outbox.enqueue(contentsOf: entries)
    }

    private static func entry(_ number: Int, _ text: String, mode: WorkspaceSendMode) -> WorkspaceOutboxEntry {
        WorkspaceOutboxEntry(
            chat: chat, operationId: "op-earlier-\(number)", status: .awaitingRetry,
            mutation: .init(mutationId: "mut-earlier-\(number)", text: text), mode: mode,
            createdAt: 1_764_400_000_000 + Int64(number))
    }

    private static func io(_ url: URL, data: URL) -> TestIO {
        TestIO(environment: [
            "SYBIL_API_URL": url.absoluteString, "SYBIL_TOKEN": token, "XDG_DATA_HOME": data.path,
        ])
    }

    private static func temporaryDirectory() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("sybil-cli-\(UUID().uuidString)")
    }

    /// Three steers into a run that has ended since, rejected one after another as the run
    /// starts: every one is reported, not only the one the composer's draft could hold.
    @Test func everyEarlierMessageRejectedOnResendIsReportedWithItsWholeText() async throws {
        let data = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: data) }
        let texts = ["First\u{1B}[2J steer", "Second steer,\nover two lines\u{9B}2J", "Third steer"]
        try await Self.leave(
            texts.enumerated().map { Self.entry($0.offset, $0.element, mode: .steer(activeRunId: "run-ended")) },
            inOutboxUnder: data)

        var options = SybilServerOptions(token: Self.token)
        options.pace = .zero
        let server = try ReferenceServer(options: options)
        defer { Task { await server.shutdown() } }
        let online = Self.io(server.baseURL, data: data)
        let status = await online.run("workspaces", "send", "sess-43", "Now", "a", "new", "turn")
        #expect(online.stdout == "accepted by desk-1: desk-1/proj-app/sess-43\n", "this run's message was taken")
        let reason = "the desktop rejected an earlier message: The run finished before the steer arrived"
        #expect(online.stderr.components(separatedBy: reason).count == 4, "one reason each: \(online.stderr)")
        for text in ["First\u{FFFD}[2J steer", "Second steer,\nover two lines\u{FFFD}2J", "Third steer"] {
            #expect(
                online.stderr.contains("the earlier message that was not sent was: \"\(text)\"\n"),
                "\(text): \(online.stderr)")
        }
        #expect(!online.stderr.unicodeScalars.contains { $0.value == 0x1B || (0x80...0x9F).contains($0.value) })
        #expect(status == 65, "\(online.stderr)")
    }

    /// The earlier message's resend on opening finds the desktop offline (503); sent again
    /// ahead of this run's message, it is rejected for good: that rejection is reported too.
    @Test func anEarlierMessageRejectedAheadOfThisRunsMessageIsReported() async throws {
        let data = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: data) }
        try await Self.leave([Self.entry(1, "Deploy\u{1B}]0;x\u{07} it", mode: .send)], inOutboxUnder: data)
        let earlierAttempts = Locked(0)
        let server = try LoopbackHTTPServer { request, connection in
            func answer(_ status: String, _ body: String) {
                connection.write(
                    "HTTP/1.1 \(status)\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n"
                        + "Connection: close\r\n\r\n" + body)
            }
            let offline = #"{"error":{"message":"The desktop is offline.","type":"desktop_offline"}}"#
            guard request.requestLine.hasPrefix("POST /v1/workspaces/rpc"),
                let call = try? JSONObjectReader(try JSONReader().parse(request.body), at: .root),
                (try? call.string("method")) == WorkspaceSubmission.method,
                let params = try? JSONObjectReader(try call.value("params"), at: .root),
                let operationId = try? params.string("operationId"),
                let mutationId = try? params.string("mutationId")
            else {
                // The capability probe and the chat's load: the desktop cannot answer yet.
                answer("503 Service Unavailable", offline)
                return
            }
            let outcome: WorkspaceSubmitReceipt.Outcome
            if operationId == "op-earlier-1" {
                let attempt = earlierAttempts.withLock { count in
                    count += 1
                    return count
                }
                guard attempt > 1 else {
                    answer("503 Service Unavailable", offline)
                    return
                }
                outcome = .rejected(reason: "The session was archived\u{1B}[31m on the desktop.")
            } else {
                outcome = .accepted(runId: "run-new")
            }
            let receipt = WorkspaceSubmitReceipt(operationId: operationId, mutationId: mutationId, outcome: outcome)
            answer("200 OK", JSONWriter().string(from: ["result": receipt.jsonValue]))
        }
        let online = Self.io(server.url, data: data)
        let status = await online.run("workspaces", "send", "desk-1/proj-app/sess-43", "Second")
        #expect(online.stdout == "accepted by desk-1: desk-1/proj-app/sess-43\n", "\(online.stderr)")
        #expect(earlierAttempts.withLock { $0 } == 2)
        #expect(
            online.stderr.contains(
                "the desktop rejected an earlier message: The session was archived\u{FFFD}[31m on the desktop.\n"),
            "\(online.stderr)")
        #expect(
            online.stderr.contains("the earlier message that was not sent was: \"Deploy\u{FFFD}]0;x\u{FFFD} it\""),
            "\(online.stderr)")
        #expect(!online.stderr.contains("\u{1B}"), "no escape reaches the terminal")
        #expect(status == 65, "\(online.stderr)")
    }
}
