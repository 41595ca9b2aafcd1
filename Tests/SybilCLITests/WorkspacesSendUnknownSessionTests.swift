import Foundation
import SybilClient
import SybilCore
import SybilServer
import SybilStore
import SybilTesting
import SybilWire
import Testing

@testable import SybilCLI

/// `sybil workspaces send SESSION` when no online desktop lists SESSION although messages an
/// earlier run queued for it wait in the outbox: they are sent once more, over a real socket to
/// the reference server, for the desktop's final answer. A session the desktop no longer
/// knows refuses them for good: each is reported with the session, its reason and its whole
/// text, kept with the session's undelivered messages, and leaves the outbox (they do not wait
/// there for ever). A desktop that cannot be reached gives no final answer: they stay.
@MainActor
@Suite("sybil workspaces send: messages queued for an unknown session", .timeLimit(.minutes(2)))
struct WorkspacesSendUnknownSessionTests {
    private static let token = WorkspacesSendFixture.token

    private static func temporaryDirectory() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("sybil-cli-\(UUID().uuidString)")
    }

    private static func store(_ data: URL) throws -> FileKeyValueStore {
        try FileKeyValueStore(directory: data.path + "/sybil/client")
    }

    private static func entry(_ chat: WorkspaceChatKey, _ number: Int, _ text: String, mode: WorkspaceSendMode = .send)
        -> WorkspaceOutboxEntry
    {
        WorkspaceOutboxEntry(
            chat: chat, operationId: "op-stranded-\(number)", status: .awaitingRetry,
            mutation: .init(mutationId: "mut-stranded-\(number)", text: text), mode: mode,
            createdAt: 1_764_400_000_000 + Int64(number))
    }

    private static func server() throws -> ReferenceServer { try WorkspacesSendFixture.server() }

    private static func io(_ server: ReferenceServer, data: URL) -> TestIO {
        WorkspacesSendFixture.io(server, data: data)
    }

    @Test func messagesForASessionTheDesktopNoLongerKnowsAreReportedKeptAndLeaveTheOutbox() async throws {
        let data = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: data) }
        let gone = WorkspaceChatKey(desktopId: "desk-1", projectId: "proj-app", sessionId: "sess-gone")
        let texts = ["Rename the\u{1B}[2J module", "Then run the\nfull test suite"]
        try await WorkspaceOutbox(store: Self.store(data)).enqueue(contentsOf: [
            Self.entry(gone, 1, texts[0]), Self.entry(gone, 2, texts[1], mode: .steer(activeRunId: "run-1")),
        ])
        let server = try Self.server()
        defer { Task { await server.shutdown() } }

        let first = Self.io(server, data: data)
        #expect(await first.run("workspaces", "send", "sess-gone", "One more") == 65, "\(first.stderr)")
        #expect(first.stdout.isEmpty)
        #expect(
            first.stderr.contains("no session 'sess-gone' on an online desktop, so this message was not sent"),
            "\(first.stderr)")
        #expect(
            first.stderr.contains(
                "2 message(s) an earlier run left in the outbox for session desk-1/proj-app/sess-gone, which no online desktop lists"
            ), "\(first.stderr)")
        let reason = "the desktop rejected an earlier message: No session sess-gone in proj-app on desk-1.\n"
        #expect(first.stderr.components(separatedBy: reason).count == 3, "one reason each: \(first.stderr)")
        for text in ["Rename the\u{FFFD}[2J module", "Then run the\nfull test suite"] {
            #expect(
                first.stderr.contains("the earlier message that was not sent was: \"\(text)\"\n"), "\(first.stderr)")
        }
        #expect(!first.stderr.contains("\u{1B}"), "no escape reaches the terminal")

        // On disk: out of the outbox, each text kept for the terminal app, in order.
        #expect(try await WorkspaceOutbox(store: Self.store(data)).pendingEntries(in: gone).isEmpty)
        let kept = WorkspaceUndeliveredMessages(persistence: .workspaces(in: try Self.store(data)))
        #expect(kept.messages(in: gone).map(\.text) == texts)
        #expect(!kept.messages(in: gone).contains { $0.text == "One more" }, "never saved: it is on the command line")

        // Nothing waits for the session any more.
        let second = Self.io(server, data: data)
        #expect(await second.run("workspaces", "send", "sess-gone", "One more") == 65)
        #expect(!second.stderr.contains("earlier"), "\(second.stderr)")
    }

    /// Named whole (DESKTOP/PROJECT/SESSION), the chat is not looked up: the earlier message
    /// goes first and is refused, kept and reported; this run's message is refused too, and
    /// since its text is on the command line, no copy of it is left in the kept list.
    @Test func aSessionNamedWholeReportsTheEarlierMessageAndKeepsOnlyIt() async throws {
        let data = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: data) }
        let gone = WorkspaceChatKey(desktopId: "desk-1", projectId: "proj-app", sessionId: "sess-gone")
        try await WorkspaceOutbox(store: Self.store(data)).enqueue(Self.entry(gone, 1, "Earlier words"))
        let server = try Self.server()
        defer { Task { await server.shutdown() } }

        let io = Self.io(server, data: data)
        #expect(await io.run("workspaces", "send", "desk-1/proj-app/sess-gone", "Own words") == 65, "\(io.stderr)")
        #expect(io.stderr.contains("the earlier message that was not sent was: \"Earlier words\"\n"), "\(io.stderr)")
        #expect(
            io.stderr.contains("the desktop did not take the message: No session sess-gone in proj-app on desk-1."),
            "\(io.stderr)")
        #expect(try await WorkspaceOutbox(store: Self.store(data)).pendingEntries(in: gone).isEmpty)
        let kept = WorkspaceUndeliveredMessages(persistence: .workspaces(in: try Self.store(data)))
        #expect(kept.messages(in: gone).map(\.text) == ["Earlier words"])
    }

    @Test func messagesForASessionOnADesktopThatIsOfflineStayInTheOutbox() async throws {
        let data = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: data) }
        // desk-2 is offline: no online desktop lists its session, which may well still exist.
        let chat = WorkspaceChatKey(desktopId: "desk-2", projectId: "proj-ci", sessionId: "sess-60")
        try await WorkspaceOutbox(store: Self.store(data)).enqueue(Self.entry(chat, 1, "Rerun the nightly build"))
        let server = try Self.server()
        defer { Task { await server.shutdown() } }

        let io = Self.io(server, data: data)
        #expect(await io.run("workspaces", "send", "sess-60", "Hello") == 65, "\(io.stderr)")
        #expect(
            io.stderr.contains(
                "1 message(s) for session desk-2/proj-ci/sess-60 stay in the outbox (Build Box is offline; try again when it is back."
            ), "\(io.stderr)")
        #expect(!io.stderr.contains("was not sent was"), "\(io.stderr)")
        let left = try await WorkspaceOutbox(store: Self.store(data)).pendingEntries(in: chat)
        #expect(left.map(\.mutation.text) == ["Rerun the nightly build"])
        #expect(WorkspaceUndeliveredMessages(persistence: .workspaces(in: try Self.store(data))).messages.isEmpty)
    }

    /// Forwards every request to `server`, one connection at a time, each closed after its
    /// answer, but renames session `hidden` in each `sessions.list` answer: the session exists
    /// and takes messages, yet no desktop lists it.
    private static func unlistingProxy(to server: ReferenceServer, hiding hidden: String) throws -> LoopbackHTTPServer {
        let port = server.baseURL.port ?? 0
        return try LoopbackHTTPServer { request, connection in
            guard let upstream = try? RawClient(port: port) else { return }
            defer { upstream.close() }
            upstream.send(Array((request.head + "\r\n\r\n").utf8) + request.body)
            guard var answer = upstream.readResponse() else { return }
            if String(decoding: request.body, as: UTF8.self).contains("\"sessions.list\"") {
                answer.body = Array(
                    String(decoding: answer.body, as: UTF8.self).replacingOccurrences(
                        of: "\"\(hidden)\"", with: "\"\(hidden)-renamed\""
                    ).utf8)
            }
            let type = answer.headers["content-type"].map { "Content-Type: \($0)\r\n" } ?? ""
            _ = connection.write(
                Array(
                    "HTTP/1.1 \(answer.status) X\r\n\(type)Content-Length: \(answer.body.count)\r\nConnection: close\r\n\r\n"
                        .utf8)
                    + answer.body)
        }
    }

    /// `io` for the server behind `proxy`, at the same path.
    private static func io(through proxy: LoopbackHTTPServer, _ server: ReferenceServer, data: URL) -> TestIO {
        let url = proxy.url.absoluteString + server.baseURL.path
        return TestIO(environment: ["SYBIL_API_URL": url, "SYBIL_TOKEN": token, "XDG_DATA_HOME": data.path])
    }

    /// The session exists, unlisted: the desktop accepts the message an earlier run queued for
    /// it. Standard error says it was delivered, this run's message follows it into that chat,
    /// and the exit status is the accepted one's, 0.
    @Test func messagesAnUnlistedSessionTakesAreDeliveredAndThisMessageFollowsThem() async throws {
        let data = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: data) }
        let chat = WorkspaceChatKey(desktopId: "desk-1", projectId: "proj-app", sessionId: "sess-43")
        try await WorkspaceOutbox(store: Self.store(data)).enqueue(Self.entry(chat, 1, "Earlier words"))
        let server = try Self.server()
        defer { Task { await server.shutdown() } }
        let proxy = try Self.unlistingProxy(to: server, hiding: "sess-43")

        let io = Self.io(through: proxy, server, data: data)
        #expect(await io.run("workspaces", "send", "sess-43", "Own words") == 0, "\(io.stderr)")
        #expect(io.stdout == "accepted by desk-1: desk-1/proj-app/sess-43\n", "\(io.stderr)")
        #expect(
            io.stderr.contains("1 of them the desktop accepted: delivered to session desk-1/proj-app/sess-43\n"),
            "\(io.stderr)")
        #expect(
            io.stderr.contains("session desk-1/proj-app/sess-43 took the earlier message(s), so this message is sent"),
            "\(io.stderr)")
        #expect(!io.stderr.contains("was not sent"), "\(io.stderr)")
        #expect(!io.stderr.contains("stay in the outbox"), "\(io.stderr)")
        let waiting = try await WorkspaceOutbox(store: Self.store(data)).pendingEntries(in: chat)
        #expect(waiting.filter { !$0.acceptedByDesktop }.isEmpty, "nothing waits to be sent again")
        #expect(WorkspaceUndeliveredMessages(persistence: .workspaces(in: try Self.store(data))).messages.isEmpty)
    }

    /// Of two messages queued for the unlisted session, the desktop takes one and refuses the
    /// other for good: standard error says which was delivered and which was kept, with its
    /// reason and whole text; this run's message is sent, and the exit status is 65 (an
    /// earlier message left the outbox undelivered), as for a listed session.
    @Test func anUnlistedSessionTakingOneAndRefusingAnotherSaysWhichAndExits65() async throws {
        let data = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: data) }
        let chat = WorkspaceChatKey(desktopId: "desk-1", projectId: "proj-app", sessionId: "sess-43")
        try await WorkspaceOutbox(store: Self.store(data)).enqueue(contentsOf: [
            Self.entry(chat, 1, "Earlier words"),
            Self.entry(chat, 2, "A late steer", mode: .steer(activeRunId: "run-ended")),
        ])
        let server = try Self.server()
        defer { Task { await server.shutdown() } }
        let proxy = try Self.unlistingProxy(to: server, hiding: "sess-43")

        let io = Self.io(through: proxy, server, data: data)
        #expect(await io.run("workspaces", "send", "sess-43", "Own words") == 65, "\(io.stderr)")
        #expect(io.stdout == "accepted by desk-1: desk-1/proj-app/sess-43\n", "\(io.stderr)")
        #expect(
            io.stderr.contains("1 of them the desktop accepted: delivered to session desk-1/proj-app/sess-43\n"),
            "\(io.stderr)")
        #expect(
            io.stderr.contains(
                "the desktop rejected an earlier message: The run finished before the steer arrived; send it as a new message.\n"
            ), "\(io.stderr)")
        #expect(io.stderr.contains("the earlier message that was not sent was: \"A late steer\"\n"), "\(io.stderr)")
        let waiting = try await WorkspaceOutbox(store: Self.store(data)).pendingEntries(in: chat)
        #expect(waiting.filter { !$0.acceptedByDesktop }.isEmpty, "nothing waits to be sent again")
        let kept = WorkspaceUndeliveredMessages(persistence: .workspaces(in: try Self.store(data)))
        #expect(kept.messages(in: chat).map(\.text) == ["A late steer"])
    }

    /// Whether the session is listed or not, an outbox that cannot be opened is exit 66, as
    /// `--help` says, and standard error says so; nothing is sent.
    @Test func anOutboxThatCannotBeOpenedIsExit66WhetherOrNotTheSessionIsListed() async throws {
        let data = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: data) }
        // A file where the outbox's folder belongs: neither can be made.
        try FileManager.default.createDirectory(
            at: data.appendingPathComponent("sybil"), withIntermediateDirectories: true)
        try Data("not a folder".utf8).write(to: data.appendingPathComponent("sybil/client"))
        let server = try Self.server()
        defer { Task { await server.shutdown() } }

        for session in ["sess-43", "sess-gone"] {
            let io = Self.io(server, data: data)
            #expect(await io.run("workspaces", "send", session, "Hello") == 66, "\(session): \(io.stderr)")
            #expect(io.stdout.isEmpty, "\(session)")
            #expect(
                io.stderr.contains("the outbox cannot be opened, so nothing was sent"), "\(session): \(io.stderr)")
        }
        let help = try #require(WorkspacesSendCommand.spec.exitStatus)
        #expect(help.contains("66 the outbox cannot be opened"), "\(help)")
    }
}
