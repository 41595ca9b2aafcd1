import Foundation
import SybilCore
import SybilHTTP
import SybilWire
import Testing

@testable import SybilServer

/// What every Agent room route emits decodes with the SybilWire decoder the clients use:
/// one contract, no second copy in the server.
@Suite("Reference server: Agent room contract", .timeLimit(.minutes(2)))
struct AgentRoomContractTests {
    @Test func theDescriptorDecodesWithVersion1AttachmentsTheV1LimitsAndTheQuota() async throws {
        let harness = try AppHarness { $0.quotaBytes = 1 << 30 }
        _ = await harness.uploadMultipart(id: "u-1", bytes: Array("twelve bytes".utf8))
        let descriptor = try AgentRoomDescriptor.decode(json(await harness.send("GET", "/agent/descriptor")), at: .root)
        #expect(descriptor.roomId == "room-main")
        #expect(descriptor.title == "Sybil Agent")
        #expect(descriptor.attachments?.limits == AgentAttachmentLimits.v1)
        #expect(descriptor.attachments?.quota == AgentQuota(usedBytes: 12, limitBytes: 1 << 30))
    }

    @Test func pagesDecodeEmptyFullAfterAndBefore() async throws {
        let harness = try AppHarness()
        let empty = try AgentRoomPage.decode(json(await harness.send("GET", "/agent/messages")), at: .root)
        #expect(empty == AgentRoomPage(messages: [], nextCursor: nil, hasMoreBefore: false))
        let submission = AgentRoomSubmission(requestId: "req-1", text: "hello", createdAt: 1_764_400_200_000)
        _ = await harness.submit("req-1", text: "hello")
        await harness.waitUntilAgentIdle()
        let page = try await harness.history()
        #expect(page.messages.map(\.role) == [.user, .tool, .assistant])
        #expect(page.messages.map(\.visibility) == [.public, .internal, .public])
        #expect(page.messages.map(\.isVisible) == [true, false, true])
        #expect(page.messages[0].requestId == submission.requestId)
        #expect(page.messages[0].createdAt == submission.createdAt)
        #expect(page.messages[2].text == ScriptedAgent(seed: 1).reply(to: "hello").text)
        #expect(page.nextCursor == page.messages.last?.cursor)
        #expect(page.messages.map(\.cursor.rawValue) == ["c-000000001", "c-000000002", "c-000000003"])
        let after = try AgentRoomPage.decode(
            json(await harness.send("GET", "/agent/messages?after=c-000000001")), at: .root)
        #expect(after.messages.map(\.messageId) == ["msg-2", "msg-3"])
        #expect(after.hasMoreBefore)
        let before = try AgentRoomPage.decode(
            json(await harness.send("GET", "/agent/messages?before=c-000000003&limit=1")), at: .root)
        #expect(before.messages.map(\.messageId) == ["msg-2"])
        #expect(before.nextCursor?.rawValue == "c-000000002")
        #expect(before.hasMoreBefore)
    }

    @Test func receiptsDecodeAndAcknowledgeExactlyTheSubmission() async throws {
        let harness = try AppHarness()
        _ = await harness.uploadMultipart(id: "u-b", bytes: [2])
        _ = await harness.uploadMultipart(id: "u-a", bytes: [1])
        let submission = AgentRoomSubmission(
            requestId: "req-1", text: "", createdAt: 1_764_400_200_000, attachments: ["u-b", "u-a"])
        let first = await harness.submit("req-1", text: "", attachments: ["u-b", "u-a"])
        #expect(first.status == 202)
        let receipt = try AgentRoomReceipt.decode(json(first), at: .root)
        #expect(receipt.acknowledges(submission))
        let again = await harness.submit("req-1", text: "", attachments: ["u-b", "u-a"])
        #expect(again.status == 200)
        #expect(try AgentRoomReceipt.decode(json(again), at: .root) == receipt)
        let message = try #require(try await harness.history().messages.first)
        #expect(message.attachments.map(\.uploadId) == ["u-b", "u-a"])
        #expect(message.attachments.map(\.size) == [1, 1])
    }

    @Test func readStatesDecodeBeforeAndAfterMarking() async throws {
        let harness = try AppHarness()
        #expect(
            try AgentReadState.decode(json(await harness.send("GET", "/agent/read")), at: .root)
                == AgentReadState(readCursor: nil, unread: 0))
        _ = await harness.submit("req-1")
        await harness.waitUntilAgentIdle()
        #expect(try AgentReadState.decode(json(await harness.send("GET", "/agent/read")), at: .root).unread == 1)
        let reply = try #require(try await harness.history().messages.last?.cursor)
        let marked = await harness.send(
            "POST", "/agent/read", body: JSONWriter().bytes(from: AgentReadState.markReadBody(reply)))
        #expect(try AgentReadState.decode(json(marked), at: .root) == AgentReadState(readCursor: reply, unread: 0))
    }

    @Test func uploadAnswersDecodeFromBothForms() async throws {
        let harness = try AppHarness()
        let bytes = Array("linker failed twice\n".utf8)
        let multipart = try AgentAttachment.decodeUploadAnswer(
            json(await harness.uploadMultipart(id: "u-1", bytes: bytes)), at: .root)
        let raw = try AgentAttachment.decodeUploadAnswer(
            json(await harness.uploadRaw(id: "u-2", bytes: bytes)), at: .root)
        #expect(multipart.fileName == "build log.txt")
        #expect(raw.fileName == "build log.txt")
        #expect(multipart.sha256 == raw.sha256)
        #expect(multipart.sha256 == "391b605071d09cabd108060727a64c4801bae85214f25be4e181ef48ae6a2f82")
        #expect(multipart.size == Int64(bytes.count))
    }

    @Test func errorBodiesDecodeWithTheirCodesParamsAndDetails() async throws {
        let harness = try AppHarness { $0.quotaBytes = 4 }
        func error(_ response: HTTPServerResponse) throws -> APIErrorBody {
            try APIErrorBody.decode(json(response), at: .root)
        }
        let invalid = try error(await harness.send("POST", "/agent/messages", json: #"{"requestId": "r"}"#))
        #expect(invalid.code == "invalid_parameter")
        #expect(invalid.param == "text")
        let notObject = try error(await harness.send("POST", "/agent/messages", json: "[]"))
        #expect(notObject.param == "body")
        let quota = try error(await harness.uploadMultipart(id: "u", bytes: [1, 2, 3, 4, 5]))
        #expect(quota.code == "quota_exceeded")
        #expect(
            try quota.details?["quota"].map { try AgentQuota.decode($0, at: .root) }
                == AgentQuota(usedBytes: 0, limitBytes: 4))
        let tooLarge = try error(
            await harness.uploadMultipart(id: "u", bytes: [UInt8](repeating: 0, count: (8 << 20) + 1)))
        #expect(tooLarge.code == "too_large")
        #expect(tooLarge.details?["limitBytes"] == .number(JSONNumber(Int64(8 << 20))))
    }

    @Test func streamFramesDecodeAsWireEventsFromReplayToLiveAndRead() async throws {
        let harness = try AppHarness()
        _ = await harness.submit("req-1", text: "first")
        await harness.waitUntilAgentIdle()
        let probe = try await harness.openStream("/agent/stream?after=c-000000001")
        var frames = probe.frames.makeAsyncIterator()
        // The replay: everything after the cursor, the agent's tool call and answer.
        let (replayed, _) = await probe.next(&frames) { frame -> AgentRoomMessage? in
            if case .event(.message(let message)) = frame, message.role == .assistant { return message }
            return nil
        }
        #expect(replayed?.cursor.rawValue == "c-000000003")
        // Live: the canonical echo of a new submission, the agent at work, its answer.
        _ = await harness.submit("req-2", text: "second")
        let (answer, live) = await probe.next(&frames) { frame -> AgentRoomMessage? in
            if case .event(.message(let message)) = frame, message.role == .assistant { return message }
            return nil
        }
        #expect(answer?.text == ScriptedAgent(seed: 1).reply(to: "second").text)
        #expect(live.contains { if case .event(.message(let m)) = $0 { m.requestId == "req-2" } else { false } })
        #expect(live.contains { if case .event(.activity(.working, _)) = $0 { true } else { false } })
        #expect(!live.contains { if case .undecodable = $0 { true } else { false } })
        // The shared read moves: a read frame.
        let reply = try #require(answer?.cursor)
        _ = await harness.send(
            "POST", "/agent/read", body: JSONWriter().bytes(from: AgentReadState.markReadBody(reply)))
        let (read, _) = await probe.next(&frames) { frame -> AgentReadState? in
            if case .event(.read(let state)) = frame { return state }
            return nil
        }
        #expect(read == AgentReadState(readCursor: reply, unread: 0))
        await probe.close()
    }
}
