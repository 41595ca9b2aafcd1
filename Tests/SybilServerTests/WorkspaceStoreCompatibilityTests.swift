import Foundation
import SybilCore
import SybilStore
import SybilWire
import Testing

@testable import SybilServer

/// The store split by job opens a database the server wrote before the split and reads the
/// same sessions, history, live epochs, runs, call ledger and uploads from it.
@Suite("Workspace store: databases written before the split", .timeLimit(.minutes(2)))
struct WorkspaceStoreCompatibilityTests {
    private static let now: Int64 = 1_800_000_000_000
    private let main = WorkspaceChatKey(desktopId: "desk-1", projectId: "proj-app", sessionId: "sess-42")
    private let ci = WorkspaceChatKey(desktopId: "desk-2", projectId: "proj-ci", sessionId: "sess-60")

    /// A directory holding the fixture as `workspaces.sqlite`.
    private static func oldDatabase() throws -> String {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "sybil-ws-compat-\(UUID().uuidString)"
        ).path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let database = try SQLiteDatabase(.file(path: directory + "/workspaces.sqlite"))
        try database.execute(WorkspaceStoreFixture.beforeSplit)
        return directory
    }

    @Test func historySessionsAndEpochsReadTheSame() async throws {
        let directory = try Self.oldDatabase()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = try WorkspaceStore(.directory(directory), agent: ScriptedAgent(seed: 1), now: Self.now)

        let sessions = try await store.sessions(desktopId: "desk-1", projectId: "proj-app")
        #expect(sessions.map(\.sessionId) == ["sess-43", "sess-42"])
        #expect(sessions.map(\.title) == ["New chat", "Fix login"])
        #expect(sessions.map(\.updatedAt) == [1_764_407_366_000, 1_764_403_766_000])
        // The interrupted runs settled at this start moved their session to now.
        #expect(try await store.sessions(desktopId: "desk-2", projectId: "proj-ci").map(\.updatedAt) == [Self.now])

        let page = try await store.page(main, threadId: "", before: nil, limit: 10)
        #expect(page.rows.map(\.sequence) == [1, 2, 3, 4, 233, 234, 235])
        #expect(page.rows.map(\.block.id) == ["e-1", "e-2", "e-3", "e-4", "e-233", "e-234", "e-235"])
        #expect(page.rows.map(\.block.type) == [.user, .thinking, .activity, .agentReply, .user, .agentReply, .user])
        #expect(page.rows.suffix(3).map(\.block.text) == ["First question", "The answer", "Steer it"])
        #expect(page.rows.suffix(3).map(\.block.operationId) == ["op-1", nil, "op-2"])
        #expect(page.rows[3].block.subagentThreadId == "thr-7")
        #expect(
            page.rows.map(\.block.timestamp).suffix(3) == [1_700_000_001_000, 1_700_000_003_000, 1_700_000_002_000])
        #expect(!page.hasOlder)
        // sess-42 settled under epoch 2: this start's overlay takes 3.
        #expect(page.live.epoch == 3)
        #expect(page.live.blocks.isEmpty)

        let older = try await store.page(main, threadId: "", before: 233, limit: 2)
        #expect(older.rows.map(\.sequence) == [3, 4])
        #expect(older.hasOlder)

        let thread = try await store.page(main, threadId: "thr-7", before: nil, limit: 10)
        #expect(thread.rows.map(\.block.id) == ["t-5", "t-6"])
        #expect(thread.rows.map(\.block.text) == ["Subagent step 1", "Subagent step 2"])
        #expect(try await store.threadExists(main, threadId: "thr-7"))
        #expect(try await !store.threadExists(main, threadId: "thr-8"))
        #expect(try await store.exists(ci))
    }

    @Test func interruptedRunsSettleAndRunNumbersContinue() async throws {
        let directory = try Self.oldDatabase()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = try WorkspaceStore(.directory(directory), agent: ScriptedAgent(seed: 1), now: Self.now)

        let page = try await store.page(ci, threadId: "", before: nil, limit: 10)
        #expect(page.rows.map(\.sequence) == [229, 230, 231, 232, 236, 237])
        #expect(page.rows.suffix(2).map(\.block.text) == ["Interrupted", "Queued behind"])
        #expect(page.rows.suffix(2).map(\.block.operationId) == ["op-3", "op-4"])
        #expect(page.rows.suffix(2).map(\.block.timestamp) == [1_700_000_005_000, 1_700_000_006_000])
        // The interrupted runs were live under epoch 1 (ci never settled one): clients may hold
        // that epoch's overlay at any revision, so this start's overlay takes the next.
        #expect(page.live.epoch == 2)
        #expect(try await store.run("run-1")?.state == .finished)
        #expect(try await store.run("run-2")?.state == .failed)
        #expect(try await store.run("run-3")?.state == .failed)
        #expect(try await store.run("run-3")?.chat == ci)
        #expect(try await store.run("run-9") == nil)
        #expect(store.boot == Self.now)

        let accepted = try await store.acceptSend(
            main, operationId: "op-5", text: "Next", now: Self.now,
            call: .init(key: "run.codexChatSubmit:op-5:m1", fingerprint: "fp-5") { "{\"runId\":\"\($0)\"}" })
        #expect(accepted.runId == "run-4")
        #expect(accepted.started?.base == 238)
    }

    @Test func theCallLedgerReadsTheSame() async throws {
        let directory = try Self.oldDatabase()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = try WorkspaceStore(.directory(directory), agent: ScriptedAgent(seed: 1), now: Self.now)

        let first = try #require(try await store.call("run.codexChatSubmit:op-1:m1"))
        #expect(first.fingerprint == "fp-1")
        #expect(first.result == #"{"runId":"run-1"}"#)
        #expect(try await store.call("run.codexChatStop:run-x")?.result == #"{"stopped":false}"#)
        #expect(try await store.call("run.codexChatSubmit:op-9:m1") == nil)
    }

    @Test func uploadsReadTheSame() async throws {
        let directory = try Self.oldDatabase()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        _ = try WorkspaceStore(.directory(directory), agent: ScriptedAgent(seed: 1), now: Self.now)
        let store = try WorkspaceUploadStore(.directory(directory))

        let finished = try #require(try await store.upload(id: "upl-1"))
        #expect(finished.uploadKey == "key-1")
        #expect(finished.chat == main)
        #expect(finished.fileName == "notes.txt")
        #expect(finished.mimeType == "text/plain")
        #expect(finished.path == "notes.txt")
        #expect(finished.size == 5)
        #expect(finished.chunkSize == 4)
        #expect(finished.state == .finished)
        #expect(finished.sha256 == "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824")
        #expect(try await store.bytes(of: "upl-1") == Array("hello".utf8))

        let open = try #require(try await store.upload(key: "key-2"))
        #expect(open.uploadId == "upl-2")
        #expect(open.chat == ci)
        #expect(open.state == .open)
        #expect(open.sha256 == nil)
        let received = try await store.receivedChunks("upl-2")
        #expect(received.indices == [1])
        #expect(received.bytes == 2)
        // Its chunk's bytes are in its row (no digest then): the same bytes again are stored
        // already, others conflict.
        #expect(try await store.storeChunk("upl-2", index: 1, bytes: [0, 255]) == .alreadyStored)
        #expect(try await store.storeChunk("upl-2", index: 1, bytes: [0, 254]) == .conflict)

        // A cancelled upload keeps its record, not its key or chunks.
        #expect(try await store.upload(key: "key-3") == nil)
        #expect(try await store.upload(id: "upl-3")?.state == .cancelled)
        #expect(try await store.receivedChunks("upl-3").indices.isEmpty)
    }
}
