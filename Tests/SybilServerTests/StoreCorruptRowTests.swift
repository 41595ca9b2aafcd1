import Foundation
import SybilCore
import SybilStore
import SybilWire
import Testing

@testable import SybilServer

/// A row that does not hold what its column promises (written here through raw SQL, as a bad
/// migration, another program or a damaged file could) is an error naming the column when a
/// store reads it, never a value the store invents (`''`, `0`, `failed`, `system`).
@Suite("Server stores: corrupted rows", .timeLimit(.minutes(2)))
struct StoreCorruptRowTests {
    private let chat = WorkspaceChatKey(desktopId: "desk-1", projectId: "proj-app", sessionId: "sess-42")

    private static func directory() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("sybil-corrupt-\(UUID().uuidString)")
            .path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// Runs `sql` on `file` in `directory` through a connection of its own.
    private static func corrupt(_ directory: String, _ file: String, _ sql: String) throws {
        try SQLiteDatabase(.file(path: directory + "/" + file), busyTimeoutMilliseconds: 5_000).execute(sql)
    }

    /// The reason of the `StorageError` `body` throws.
    private static func reason(_ body: () async throws -> Void) async -> String? {
        do {
            try await body()
            return nil
        } catch let error as StorageError {
            return error.reason
        } catch {
            Issue.record("not a StorageError: \(error)")
            return nil
        }
    }

    @Test func aRunWithAnUnknownStateIsAnErrorNotFailed() async throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = try WorkspaceStore(.directory(directory), agent: ScriptedAgent(seed: 1), now: 1)
        _ = try await store.acceptSend(
            chat, operationId: "op-1", text: "Hi", now: 2, call: .init(key: "k1", fingerprint: "f") { $0 })
        #expect(try await store.run("run-1")?.state == .running)
        try Self.corrupt(directory, "workspaces.sqlite", "UPDATE ws_runs SET state = 'paused' WHERE run_id = 'run-1'")
        #expect(
            await Self.reason { _ = try await store.run("run-1") }
                == "column ws_runs.state holds 'paused', which is not a RunState")
    }

    @Test func aHistoryRowWithAnUnknownTypeIsAnErrorNotASystemRow() async throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = try WorkspaceStore(.directory(directory), agent: ScriptedAgent(seed: 1), now: 1)
        #expect(try await store.page(chat, threadId: "", before: 2, limit: 1).rows.map(\.block.type) == [.user])
        try Self.corrupt(directory, "workspaces.sqlite", "UPDATE ws_rows SET type = 'note' WHERE sequence = 1")
        #expect(
            await Self.reason { _ = try await store.page(chat, threadId: "", before: 2, limit: 1) }
                == "column ws_rows.type holds 'note', which is not a TimelineRowType")
        // The row next to it still reads.
        #expect(try await store.page(chat, threadId: "", before: 3, limit: 1).rows.map(\.sequence) == [2])
        try Self.corrupt(directory, "workspaces.sqlite", "UPDATE ws_rows SET text = X'00' WHERE sequence = 2")
        #expect(
            await Self.reason { _ = try await store.page(chat, threadId: "", before: 3, limit: 1) }
                == "column ws_rows.text holds a blob, expected text")
    }

    @Test func aSessionOrCallWithTheWrongKindIsAnErrorNotEmpty() async throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = try WorkspaceStore(.directory(directory), agent: ScriptedAgent(seed: 1), now: 1)
        try await store.recordCall("k1", fingerprint: "f", result: "{}")
        try Self.corrupt(
            directory, "workspaces.sqlite",
            """
            UPDATE ws_sessions SET title = X'01' WHERE session_id = 'sess-42';
            UPDATE ws_calls SET result = X'02' WHERE call_key = 'k1';
            """)
        #expect(
            await Self.reason { _ = try await store.sessions(desktopId: "desk-1", projectId: "proj-app") }
                == "column ws_sessions.title holds a blob, expected text")
        #expect(
            await Self.reason { _ = try await store.call("k1") } == "column ws_calls.result holds a blob, expected text"
        )
    }

    @Test func anUploadWithAnUnknownStateOrNoChunkSizeIsAnError() async throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let uploads = try WorkspaceUploadStore(.directory(directory))
        for id in ["upl-1", "upl-2", "upl-3"] {
            try await uploads.createUpload(
                .init(
                    uploadId: id, uploadKey: "key-\(id)", chat: chat, fileName: "a.txt", mimeType: "text/plain",
                    path: "a.txt", size: 3, chunkSize: 1, state: .open, sha256: nil))
        }
        try Self.corrupt(
            directory, "workspaces.sqlite",
            """
            UPDATE ws_uploads SET state = 'lost' WHERE upload_id = 'upl-1';
            UPDATE ws_uploads SET chunk_size = 0 WHERE upload_id = 'upl-2';
            """)
        #expect(
            await Self.reason { _ = try await uploads.upload(id: "upl-1") }
                == "column ws_uploads.state holds 'lost', which is not a UploadState")
        #expect(
            await Self.reason { _ = try await uploads.upload(id: "upl-2") }
                == "column ws_uploads.chunk_size holds 0, expected a positive size")
        // One either side of the smallest valid chunk size.
        #expect(try await uploads.upload(id: "upl-3")?.chunkSize == 1)
    }

    @Test func anAgentMessageWithAnUnknownRoleOrAMissingUploadIsAnError() async throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = try AgentRoomStore(.directory(directory))
        for number in 1...2 {
            _ = try await store.submit(
                AgentRoomSubmission(requestId: "req-\(number)", text: "Hi", createdAt: 1), fingerprint: "f",
                maxTotalBytes: 1)
        }
        #expect(try await store.messages(after: 0, before: nil, limit: 10).rows.count == 2)
        try Self.corrupt(
            directory, "agent-room.sqlite",
            """
            UPDATE agent_messages SET role = 'robot' WHERE sequence = 1;
            UPDATE agent_messages SET attachments = 'upl-gone' WHERE sequence = 2;
            """)
        #expect(
            await Self.reason { _ = try await store.messages(after: 0, before: 2, limit: 1) }
                == "column agent_messages.role holds 'robot', which is not a Role")
        #expect(
            await Self.reason { _ = try await store.messages(after: 1, before: nil, limit: 1) }
                == "column agent_messages.attachments of message 2 names upload upl-gone, which agent_uploads does not hold"
        )
    }

    @Test func aRecordWhoseBodyIsNotTextIsAnError() async throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = try ServerRecordStore(.directory(directory))
        #expect(try await store.count() == 0)
        try Self.corrupt(
            directory, "records.sqlite",
            "INSERT INTO records (id, kind, created_at, body, received_at) VALUES ('r-1', 'note', 1, X'7b7d', 1)")
        #expect(try await store.count() == 1)
        #expect(
            await Self.reason { _ = try await store.page(after: 0, limit: 10) }
                == "column records.body holds a blob, expected text")
    }
}
