import Dispatch
import Foundation
import SybilCore
import SybilHTTP
import SybilStore
import SybilTesting
import SybilWire
import Testing

@testable import SybilServer

/// `GET agent/read` is answered at once on the calling thread when the Agent room store's
/// connection is free: the answer sees every write the store finished, never waits for the
/// store's actor, and a read over too many rows is left to the actor.
@Suite("Reference server: the Agent room's read state at once", .timeLimit(.minutes(2)))
struct AgentReadAtOnceTests {
    /// Stores a user message and the agent's reply to it; returns the reply.
    private func exchange(_ store: AgentRoomStore, _ number: Int) async throws -> AgentRoomStore.Row {
        let submitted = try await store.submit(
            AgentRoomSubmission(requestId: "req-\(number)", text: "Hi \(number)", createdAt: 1), fingerprint: "f",
            maxTotalBytes: 1)
        let turn = AgentRoomStore.PendingTurn(user: submitted.row, toolStored: false)
        return try await store.storeReply(of: turn, text: "Hello \(number)", createdAt: 2)
    }

    @Test func aReadAtOnceSeesEveryFinishedWrite() async throws {
        let store = try AgentRoomStore(.inMemory)
        #expect(try store.readStateIfIdle() == AgentReadState(readCursor: nil, unread: 0))
        let first = try await exchange(store, 1)
        let second = try await exchange(store, 2)
        #expect(try store.readStateIfIdle() == AgentReadState(readCursor: nil, unread: 2))
        #expect(try await store.markRead(first.sequence))
        let state = try store.readStateIfIdle()
        #expect(state == AgentReadState(readCursor: first.message.cursor, unread: 1))
        #expect(try await store.readState() == state)
        #expect(try await store.markRead(second.sequence))
        #expect(try store.readStateIfIdle() == AgentReadState(readCursor: second.message.cursor, unread: 0))
    }

    @Test func aReadAtOnceNeverWaitsForTheStore() async throws {
        let store = try AgentRoomStore(.inMemory)
        let inside = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let descriptor = AgentAttachment(
            uploadId: "upl-1", fileName: "a.txt", mimeType: "text/plain", size: 1, sha256: SHA256Digest.hex([1]))
        // The upload's admission runs while the store holds its connection.
        let file = store.spool(param: "file")
        try file.append([1])
        let upload = Task {
            try await store.storeUpload(descriptor, file: file, createdAt: 1, quotaBytes: 10) {
                inside.signal()
                release.wait()
            }
        }
        await blocking { inside.wait() }
        // Answered at once, without the connection (waiting would never end: the store waits for us).
        #expect(try store.readStateIfIdle() == nil)
        release.signal()
        #expect(try await upload.value.created)
        #expect(try store.readStateIfIdle() == AgentReadState(readCursor: nil, unread: 0))
    }

    @Test func aReadOverTooManyRowsIsLeftToTheStore() async throws {
        let store = try AgentRoomStore(.inMemory)
        let service = AgentRoomService(
            store: store, options: SybilServerOptions(token: "t"),
            time: ServerTime(clock: ManualClock()) { AppHarness.epochBase })
        // Two thousand unread rows (replies and the messages they answer) take more
        // instructions to count than a read at once may spend.
        for number in 1...1000 { _ = try await exchange(store, number) }
        let error = try #require(throws: SQLiteError.self) { try store.readStateIfIdle() }
        #expect(error.code == 9)  // SQLITE_INTERRUPT
        #expect(service.readAtOnce() == nil)
        #expect(try await store.readState() == AgentReadState(readCursor: nil, unread: 1000))
        #expect(try json(await service.read())["unread"].int == 1000)
        // The connection is whole afterwards: with few rows left to count, the read fits again.
        let last = try await store.messages(after: nil, before: nil, limit: 1).rows[0]
        #expect(try await store.markRead(last.sequence - 1))
        #expect(try store.readStateIfIdle()?.unread == 1)
        #expect(try json(try #require(service.readAtOnce()))["unread"].int == 1)
    }

    @Test func theRouteAnswersAtOnceWhatItsTaskWould() async throws {
        let harness = try AppHarness()
        let submitted = try json(
            await harness.send(
                "POST", "/agent/messages", json: #"{"requestId": "req-1", "text": "Hi", "createdAt": 1}"#))
        let cursor = try #require(submitted["receipt"]["cursor"].string)
        // The agent's reply is stored; the user's message is read, the reply not yet.
        await harness.app.quiescent()
        #expect(await harness.send("POST", "/agent/read", json: #"{"cursor": "\#(cursor)"}"#).status == 200)
        let request = HTTPServerRequest(
            method: "GET", target: "/agent/read", headers: [("Authorization", "Bearer \(AppHarness.token)")])
        let atOnce = try #require(harness.app.immediateResponse(to: request))
        let onTask = await harness.send("GET", "/agent/read")
        #expect(atOnce.status == 200)
        #expect(atOnce.headers["Content-Type"] == "application/json")
        #expect(atOnce.bodyBytes == onTask.bodyBytes)
        #expect(try json(atOnce)["readCursor"].string == cursor)
        #expect(try json(atOnce)["unread"].int == 1)
    }
}
