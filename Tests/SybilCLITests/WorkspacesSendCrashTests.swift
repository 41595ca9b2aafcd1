import Foundation
import SybilClient
import SybilCore
import SybilServer
import SybilStore
import SybilTesting
import SybilWire
import Testing

@testable import SybilCLI

/// SPEC §2 "nothing lost" for `sybil workspaces send`: the process dies (SIGKILL) after any
/// write of a run in which the desktop rejects for good a message an earlier run left in the
/// outbox. Its text is then on disk at every moment: still in the outbox, or kept with the
/// session's undelivered messages (which the terminal app shows), never in neither; a run
/// that is not killed also reports it whole on standard error.
@MainActor
@Suite("sybil workspaces send: a rejected earlier message across a crash", .timeLimit(.minutes(3)))
struct WorkspacesSendCrashTests {
    /// The disk of the outbox copy and of the kept texts: once ``arm(writes:)`` ran, that
    /// many more writes finish and every later one fails before it changes anything, as if
    /// the process were gone. Counts the writes that finished.
    final class DyingStore: KeyValueStore, Sendable {
        struct SimulatedCrash: Error, CustomStringConvertible {
            var description: String { "the process died" }
        }

        let disk = InMemoryKeyValueStore()
        private let state = Locked((left: Int?.none, written: 0))

        func arm(writes: Int) { state.withLock { $0.left = writes } }

        var written: Int { state.withLock { $0.written } }

        private func write(_ change: () throws -> Void) throws {
            try state.withLock { state in
                if let left = state.left {
                    guard left > 0 else { throw SimulatedCrash() }
                    state.left = left - 1
                }
                try change()
                state.written += 1
            }
        }

        func data(forKey key: String) throws -> [UInt8]? { try disk.data(forKey: key) }

        func set(_ data: [UInt8], forKey key: String) throws {
            try write { try disk.set(data, forKey: key) }
        }

        func removeValue(forKey key: String) throws {
            try write { try disk.removeValue(forKey: key) }
        }
    }

    private static let token = "cli-token"
    private static let chat = WorkspaceChatKey(desktopId: "desk-1", projectId: "proj-app", sessionId: "sess-43")
    private static let text = "Steer: keep the old\nlogin form until the migration ran."

    /// A disk on which an earlier run left a steer into a run that has ended since: the
    /// desktop rejects it for good when it is sent again.
    private static func diskWithAnEarlierSteer() async throws -> DyingStore {
        let store = DyingStore()
        let outbox = try WorkspaceOutbox(store: store.disk)
        try await outbox.enqueue(
            WorkspaceOutboxEntry(
                chat: chat, operationId: "op-earlier-1", status: .awaitingRetry,
                mutation: .init(mutationId: "mut-earlier-1", text: text), mode: .steer(activeRunId: "run-ended"),
                createdAt: 1_764_400_000_000))
        return store
    }

    /// `sybil workspaces send sess-43 Now` over `store` against a new reference server.
    private static func send(over store: DyingStore) async throws -> (status: Int32, io: TestIO) {
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("sybil-cli-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: data) }
        var options = SybilServerOptions(token: token)
        options.pace = .zero
        let server = try ReferenceServer(options: options)
        defer { Task { await server.shutdown() } }
        let io = TestIO(environment: [
            "SYBIL_API_URL": server.baseURL.absoluteString, "SYBIL_TOKEN": token, "XDG_DATA_HOME": data.path,
        ])
        let status = await WorkspacesSendCommand.$storeForTests.withValue(store) {
            await io.run("workspaces", "send", "sess-43", "Now")
        }
        return (status, io)
    }

    /// Where the text is after the process died: in the outbox, in the kept list, as the next
    /// launch reads them.
    private static func afterRelaunch(_ disk: InMemoryKeyValueStore) async throws -> (
        inOutbox: [String], kept: [String]
    ) {
        let outbox = try WorkspaceOutbox(store: disk)
        let kept = WorkspaceUndeliveredMessages(persistence: .workspaces(in: disk))
        return (
            await outbox.pendingEntries(in: chat).map(\.mutation.text), kept.messages(in: chat).map(\.text)
        )
    }

    @Test func theRejectedTextIsReportedAndKeptWhenTheRunIsNotKilled() async throws {
        let store = try await Self.diskWithAnEarlierSteer()
        let (status, io) = try await Self.send(over: store)
        #expect(status == 65, "\(io.stderr)")
        #expect(io.stdout == "accepted by desk-1: desk-1/proj-app/sess-43\n", "\(io.stderr)")
        #expect(
            io.stderr.contains(
                "the earlier message that was not sent was: \"Steer: keep the old\nlogin form until the migration ran.\"\n"
            ), "\(io.stderr)")
        #expect(io.stderr.contains("kept with the session's undelivered messages"), "\(io.stderr)")
        let after = try await Self.afterRelaunch(store.disk)
        #expect(after.inOutbox.filter { $0 == Self.text }.isEmpty, "it left the outbox")
        #expect(after.kept == [Self.text], "the terminal app shows it to send again")
    }

    /// Killed after each write of the run in turn (the first before anything was written):
    /// the text of the rejected message is on disk every time.
    @Test func theRejectedTextSurvivesAKillAfterAnyWrite() async throws {
        let whole = try await Self.diskWithAnEarlierSteer()
        _ = try await Self.send(over: whole)
        let writes = whole.written
        #expect(writes >= 3, "the run writes the generation, the kept text and the outbox's change")
        for survivingWrites in 0...writes {
            let store = try await Self.diskWithAnEarlierSteer()
            store.arm(writes: survivingWrites)
            let (status, io) = try await Self.send(over: store)
            let after = try await Self.afterRelaunch(store.disk)
            #expect(
                after.inOutbox.contains(Self.text) || after.kept.contains(Self.text),
                "killed after \(survivingWrites) of \(writes) writes (exit \(status)): \(io.stderr)")
        }
    }
}
