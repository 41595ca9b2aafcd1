import Foundation
import SybilCore
import SybilHTTP
import SybilWire
import Testing

@testable import SybilServer

@Suite("Reference server: Agent room", .timeLimit(.minutes(2)))
struct AgentRoomRoutesTests {
    private func submit(
        _ harness: AppHarness, id: String, text: String = "Summarise the build failures.", attachments: [String] = []
    )
        async -> HTTPServerResponse
    {
        await harness.submit(id, text: text, attachments: attachments)
    }

    private func upload(
        _ harness: AppHarness, id: String, bytes: [UInt8], name: String = "build%20log.txt", type: String = "text/plain"
    ) async -> HTTPServerResponse {
        await harness.uploadRaw(id: id, bytes: bytes, name: name, type: type)
    }

    /// The history once the agent has answered every message (its own signal, no polling).
    private func awaitReply(_ harness: AppHarness) async throws -> JSONValue {
        await harness.waitUntilAgentIdle()
        return try json(await harness.send("GET", "/agent/messages?limit=200"))
    }

    @Test func descriptorAdvertisesAttachmentsVersion1WithTheV1Limits() async throws {
        let harness = try AppHarness()
        let body = try json(await harness.send("GET", "/agent/descriptor"))
        #expect(body["capabilities"]["attachments"]["version"].int == 1)
        #expect(body["capabilities"]["attachments"]["limits"]["maxFileBytes"].int == 8_388_608)
        #expect(body["capabilities"]["attachments"]["quota"]["usedBytes"].int == 0)
    }

    @Test func resubmittingTheSameRequestIdNeverCreatesASecondMessage() async throws {
        let harness = try AppHarness()
        let first = await submit(harness, id: "req-1")
        #expect(first.status == 202)
        let again = await submit(harness, id: "req-1")
        #expect(again.status == 200)
        #expect(try json(again) == json(first))
        let conflict = await submit(harness, id: "req-1", text: "Something else")
        #expect(conflict.status == 409)
        #expect(try APIErrorBody.decode(json(conflict), at: .root).code == "request_conflict")
        let history = try await awaitReply(harness)
        let users = history["messages"].array?.filter { $0["role"].string == "user" } ?? []
        #expect(users.count == 1)
        #expect(users.first?["requestId"].string == "req-1")
    }

    @Test func aRetryRacingItsFirstAttemptCreatesOneMessage() async throws {
        let harness = try AppHarness()
        async let first = submit(harness, id: "req-1")
        async let second = submit(harness, id: "req-1")
        let statuses = await [first.status, second.status].sorted()
        #expect(statuses == [200, 202])
        let users = try await awaitReply(harness)["messages"].array?.filter { $0["role"].string == "user" }
        #expect(users?.count == 1)
    }

    @Test func theAgentRepliesWithAHiddenToolCallAndAPublicAnswer() async throws {
        let harness = try AppHarness()
        _ = await submit(harness, id: "req-1")
        let roles = try await awaitReply(harness)["messages"].array?.map {
            "\($0["role"].string ?? "")/\($0["visibility"].string ?? "")"
        }
        #expect(roles == ["user/public", "tool/internal", "assistant/public"])
    }

    @Test func historyPagesByCursorAndLimitBoundaries() async throws {
        let harness = try AppHarness()
        for index in 1...3 { _ = await submit(harness, id: "req-\(index)", text: "message \(index)") }
        _ = try await awaitReply(harness)
        let newest = try json(await harness.send("GET", "/agent/messages?limit=2"))
        #expect(newest["messages"].array?.count == 2)
        #expect(newest["hasMoreBefore"] == .bool(true))
        let newestCursor = try #require(newest["nextCursor"].string)
        let oldestShown = try #require(newest["messages"][0]["cursor"].string)
        let older = try json(await harness.send("GET", "/agent/messages?before=\(oldestShown)&limit=200"))
        #expect(older["messages"].array?.last?["cursor"].string.map { $0 < oldestShown } == true)
        #expect(older["hasMoreBefore"] == .bool(false))
        let after = try json(await harness.send("GET", "/agent/messages?after=\(newestCursor)"))
        #expect(after["messages"].array?.isEmpty == true)
        #expect(after["nextCursor"].string == newestCursor)
        for (limit, status) in [("0", 400), ("1", 200), ("200", 200), ("201", 400), ("ten", 400)] {
            let response = await harness.send("GET", "/agent/messages?limit=\(limit)")
            #expect(response.status == status, "limit \(limit)")
        }
        let both = await harness.send("GET", "/agent/messages?after=c-000000001&before=c-000000003")
        #expect(both.status == 400)
        let badCursor = await harness.send("GET", "/agent/messages?after=msg-1")
        #expect(try APIErrorBody.decode(json(badCursor), at: .root).param == "after")
    }

    @Test func readPositionIsSharedCountsOnlyPublicRepliesAndNeverMovesBack() async throws {
        let harness = try AppHarness()
        _ = await submit(harness, id: "req-1")
        let history = try await awaitReply(harness)
        #expect(try json(await harness.send("GET", "/agent/read"))["unread"].int == 1)
        let reply = try #require(history["messages"].array?.last?["cursor"].string)
        let userCursor = try #require(history["messages"][0]["cursor"].string)
        let marked = try json(await harness.send("POST", "/agent/read", json: #"{"cursor": "\#(reply)"}"#))
        #expect(marked["readCursor"].string == reply)
        #expect(marked["unread"].int == 0)
        let back = try json(await harness.send("POST", "/agent/read", json: #"{"cursor": "\#(userCursor)"}"#))
        #expect(back["readCursor"].string == reply)
        let unknown = await harness.send("POST", "/agent/read", json: #"{"cursor": "c-000000099"}"#)
        #expect(unknown.status == 400)
        #expect(try APIErrorBody.decode(json(unknown), at: .root).param == "cursor")
    }

    @Test func uploadsAreIdempotentByIdAndDownloadExactBytesWithTheirDigest() async throws {
        let harness = try AppHarness()
        let bytes = Array("linker failed twice\n".utf8)
        let created = await upload(harness, id: "up-1", bytes: bytes)
        #expect(created.status == 201)
        let descriptor = try json(created)["upload"]
        #expect(descriptor["fileName"].string == "build log.txt")
        #expect(descriptor["size"].int == Int64(bytes.count))
        // sha256sum of the same bytes, computed outside the project.
        #expect(descriptor["sha256"].string == "391b605071d09cabd108060727a64c4801bae85214f25be4e181ef48ae6a2f82")
        #expect(await upload(harness, id: "up-1", bytes: bytes).status == 200)
        let conflict = await upload(harness, id: "up-1", bytes: bytes + [0x21])
        #expect(conflict.status == 409)
        #expect(try APIErrorBody.decode(json(conflict), at: .root).code == "upload_conflict")
        let original = await harness.send("GET", "/agent/uploads/up-1/original")
        #expect(original.bodyBytes == bytes)
        #expect(original.headers["X-Content-SHA256"] == descriptor["sha256"].string)
        #expect(await harness.send("GET", "/agent/uploads/up-2/original").status == 404)
        let sent = try json(await submit(harness, id: "req-1", text: "", attachments: ["up-1"]))
        #expect(sent["receipt"]["attachments"] == ["up-1"])
        let unknown = await submit(harness, id: "req-2", attachments: ["up-1", "nope"])
        #expect(try APIErrorBody.decode(json(unknown), at: .root).param == "attachments[1]")
    }

    @Test(
        "files may be 8 MiB and images 6 MiB: at the limit accepted, one byte over refused with details",
        arguments: [("text/plain", 8 << 20), ("image/png", 6 << 20)])
    func sizeLimits(type: String, limit: Int) async throws {
        let harness = try AppHarness()
        func bytes(_ count: Int) -> [UInt8] {
            type == "image/png"
                ? ImageFixture.png(width: 64, height: 64, size: count) : [UInt8](repeating: 1, count: count)
        }
        #expect(await upload(harness, id: "at", bytes: bytes(limit), type: type).status == 201)
        let over = await upload(harness, id: "over", bytes: bytes(limit + 1), type: type)
        #expect(over.status == 413)
        let body = try json(over)
        #expect(body["error"]["code"].string == "too_large")
        #expect(body["error"]["details"]["limitBytes"].int == Int64(limit))
        #expect(body["error"]["details"]["sizeBytes"].int == Int64(limit + 1))
    }

    @Test func tooManyUploadsIn60SecondsAre429WithRetryAfter() async throws {
        let harness = try AppHarness { $0.uploadsPerMinute = 2 }
        #expect(await upload(harness, id: "a", bytes: [1]).status == 201)
        harness.clock.advance(by: .seconds(10))
        #expect(await upload(harness, id: "b", bytes: [2]).status == 201)
        let limited = await upload(harness, id: "c", bytes: [3])
        #expect(limited.status == 429)
        #expect(limited.headers["Retry-After"] == "50")
        #expect(try json(limited)["error"]["details"]["retryAfterSeconds"].int == 50)
        #expect(await upload(harness, id: "a", bytes: [1]).status == 200)  // a retry is not a new upload
        harness.clock.advance(by: .seconds(50))
        #expect(await upload(harness, id: "c", bytes: [3]).status == 201)
    }

    @Test func tooManyNewMessagesIn60SecondsAre429AndARetryOfAStoredOneIsNotCounted() async throws {
        let harness = try AppHarness { $0.messagesPerMinute = 2 }
        #expect(await submit(harness, id: "req-a").status == 202)
        harness.clock.advance(by: .seconds(10))
        #expect(await submit(harness, id: "req-b").status == 202)
        // A retry of a stored message answers it again and takes no place in the window.
        #expect(await submit(harness, id: "req-a").status == 200)
        let limited = await submit(harness, id: "req-c")
        #expect(limited.status == 429)
        #expect(limited.headers["Retry-After"] == "50")
        #expect(try json(limited)["error"]["details"]["retryAfterSeconds"].int == 50)
        // Nothing of the refused message was stored.
        #expect(try await harness.history().messages.filter { $0.requestId == "req-c" }.isEmpty)
        harness.clock.advance(by: .seconds(50))
        #expect(await submit(harness, id: "req-c").status == 202)
    }

    @Test func aFullQuotaIs507WithTheQuota() async throws {
        let harness = try AppHarness { $0.quotaBytes = 10 }
        #expect(await upload(harness, id: "a", bytes: [UInt8](repeating: 0, count: 10)).status == 201)
        let full = await upload(harness, id: "b", bytes: [1])
        #expect(full.status == 507)
        #expect(try json(full)["error"]["details"]["quota"] == ["usedBytes": 10, "limitBytes": 10])
    }

    @Test func unavailableAttachmentsAre503ButTextStillWorks() async throws {
        let harness = try AppHarness { $0.attachmentsAvailable = false }
        let refused = await upload(harness, id: "a", bytes: [1])
        #expect(refused.status == 503)
        #expect(refused.headers["Retry-After"] == "30")
        #expect(try APIErrorBody.decode(json(refused), at: .root).code == "open_proxy_unavailable")
        #expect(await submit(harness, id: "req-1").status == 202)
    }

    @Test(
        "upload headers are checked and named",
        arguments: [
            ([("X-File-Name", "a.txt"), ("Content-Type", "text/plain")], "X-Upload-Id"),
            ([("X-Upload-Id", "u"), ("Content-Type", "text/plain")], "X-File-Name"),
            ([("X-Upload-Id", "u"), ("X-File-Name", "a%2Fb"), ("Content-Type", "text/plain")], "X-File-Name"),
            ([("X-Upload-Id", "u"), ("X-File-Name", "a.txt")], "Content-Type"),
        ])
    func uploadHeaders(headers: [(String, String)], param: String) async throws {
        let harness = try AppHarness()
        let response = await harness.send("POST", "/agent/uploads", body: [1], headers: headers)
        #expect(response.status == 400)
        #expect(try APIErrorBody.decode(json(response), at: .root).param == param)
    }
}
