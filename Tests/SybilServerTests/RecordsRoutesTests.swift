import Foundation
import SybilCore
import SybilHTTP
import SybilServer
import SybilWire
import Testing

/// `POST records/batch` and `GET records` (docs/api/records.md): idempotent by id, per-record
/// results in order, strict bodies and parameters, bearer auth, and durable batches.
@Suite("Reference server: records", .timeLimit(.minutes(2)))
struct RecordsRoutesTests {
    static func id(_ number: Int) -> String {
        let hex = String(number, radix: 16)
        return "00000000-0000-4000-8000-" + String(repeating: "0", count: 12 - hex.count) + hex
    }

    static func mood(_ number: Int, score: Int = 3) throws -> Record {
        try Record(
            id: id(number), createdAt: 1_800_000_000_000 + Int64(number), payload: .mood(score: score, note: nil))
    }

    private func post(_ harness: AppHarness, _ body: JSONValue, path: String = "/records/batch") async
        -> HTTPServerResponse
    {
        await harness.send("POST", path, json: JSONWriter().string(from: body))
    }

    private func post(_ harness: AppHarness, _ records: [Record]) async throws -> [RecordResult] {
        let response = await post(harness, RecordBatch(records: records).jsonValue)
        #expect(response.status == 200)
        let answer = try RecordBatchAnswer.decode(try json(response), at: .root)
        try answer.check(answering: records)
        return answer.results
    }

    private func page(_ harness: AppHarness, _ query: String = "") async throws -> RecordPage {
        let response = await harness.send("GET", "/records" + query)
        #expect(response.status == 200)
        return try RecordPage.decode(try json(response), at: .root)
    }

    private func expect400(
        _ response: HTTPServerResponse, param: String, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        #expect(response.status == 400, sourceLocation: sourceLocation)
        let error = try APIErrorBody.decode(try json(response), at: .root)
        #expect(error.param == param, "\(error.message)", sourceLocation: sourceLocation)
    }

    @Test func aBatchIsStoredOnceAndListedInOrder() async throws {
        let harness = try AppHarness()
        let records = try (1...3).map { try Self.mood($0) }
        #expect(try await post(harness, records).map(\.status) == [.created, .created, .created])
        let listed = try await page(harness)
        #expect(listed.records == records)
        #expect(listed.nextCursor == RecordCursor(sequence: 3))
        #expect(!listed.hasMore)
        // The retry of a batch whose answer was lost: every record a duplicate, none stored twice.
        #expect(try await post(harness, records).map(\.status) == [.duplicate, .duplicate, .duplicate])
        #expect(try await page(harness).records == records)
    }

    @Test func theSameIDWithOtherContentIsAConflictAlsoWithinABatch() async throws {
        let harness = try AppHarness()
        _ = try await post(harness, [try Self.mood(1)])
        let results = try await post(
            harness, [try Self.mood(1, score: 5), try Self.mood(2), try Self.mood(2, score: 1)])
        #expect(results.map(\.status) == [.rejected, .created, .rejected])
        #expect(results[0].error?.code == "record_conflict")
        #expect(results[0].error?.param == "records[0].id")
        #expect(results[2].error?.code == "record_conflict")
        #expect(try await page(harness).records == [try Self.mood(1), try Self.mood(2)])
    }

    @Test func aMalformedRecordIsRejectedAloneNamingItsField() async throws {
        let harness = try AppHarness()
        let good = try Self.mood(1)
        var bad = good.jsonValue
        if case .object(var object) = bad {
            object.members = object.members.map { $0.key == "id" ? JSONMember("id", .string(Self.id(2))) : $0 }
            object.members = object.members.map { $0.key == "score" ? JSONMember("score", 6) : $0 }
            bad = .object(object)
        }
        let response = await post(harness, ["records": [good.jsonValue, bad, ["id": "not-a-uuid"]]])
        #expect(response.status == 200)
        let results = try RecordBatchAnswer.decode(try json(response), at: .root).results
        #expect(results.map(\.status) == [.created, .rejected, .rejected])
        #expect(results.map(\.id) == [Self.id(1), Self.id(2), nil])
        #expect(results[1].error?.code == "invalid_record")
        #expect(results[1].error?.param == "records[1].score")
        #expect(results[1].error?.message.contains("outside 1…5") == true)
        #expect(results[2].error?.param == "records[2].id")
        #expect(try await page(harness).records == [good])
    }

    @Test func aMalformedBodyIsA400NamingTheMember() async throws {
        let harness = try AppHarness()
        let notJSON = await harness.send("POST", "/records/batch", body: Array("{\"records\": [".utf8))
        try expect400(notJSON, param: "body")
        try expect400(await post(harness, ["records": []]), param: "records")
        try expect400(await post(harness, ["other": []]), param: "records")
        try expect400(await post(harness, ["records": "x"]), param: "records")
        try expect400(await post(harness, [1, 2]), param: "body")
        let tooMany = JSONValue.array(Array(repeating: try Self.mood(1).jsonValue, count: 501))
        try expect400(await post(harness, ["records": tooMany]), param: "records")
        let oversized = await harness.send(
            "POST", "/records/batch", body: Array(repeating: 0x20, count: RecordBatch.maxBodyBytes + 1))
        #expect(oversized.status == 413)
        #expect(try await page(harness).records.isEmpty)
    }

    @Test func fiveHundredRecordsFitOneBatch() async throws {
        let harness = try AppHarness()
        let records = try (1...500).map { try Self.mood($0) }
        #expect(try await post(harness, records).allSatisfy { $0.status == .created })
        #expect(try await page(harness, "?limit=500").records.count == 500)
    }

    @Test func pagesFollowTheCursor() async throws {
        let harness = try AppHarness()
        let records = try (1...3).map { try Self.mood($0) }
        _ = try await post(harness, records)
        let first = try await page(harness, "?limit=2")
        #expect(first.records == Array(records.prefix(2)))
        #expect(first.hasMore)
        let second = try await page(harness, "?after=\(first.nextCursor!)&limit=2")
        #expect(second.records == [records[2]])
        #expect(!second.hasMore)
        let beyond = try await page(harness, "?after=9223372036854775807")
        #expect(beyond.records.isEmpty)
        #expect(beyond.nextCursor == RecordCursor(sequence: .max))
        #expect(try await page(harness, "?limit=1").records.count == 1)
        #expect(try await page(harness, "?after=0&limit=500").records.count == 3)
    }

    @Test func hostileParametersAreA400NamingTheParameter() async throws {
        let harness = try AppHarness()
        for after in ["-1", "042", "9223372036854775808", "abc", "", "%2B4", "1.0"] {
            try expect400(await harness.send("GET", "/records?after=\(after)"), param: "after")
        }
        for limit in ["0", "501", "-1", "1.5", "", "0500", "99999999999999999999", "%201"] {
            try expect400(await harness.send("GET", "/records?limit=\(limit)"), param: "limit")
        }
    }

    @Test func bothRoutesNeedTheTokenAndAreServedUnderTheBasePath() async throws {
        let harness = try AppHarness()
        let body = Array(JSONWriter().string(from: RecordBatch(records: [try Self.mood(1)]).jsonValue).utf8)
        #expect(await harness.send("POST", "/records/batch", body: body, authorization: nil).status == 401)
        #expect(await harness.send("GET", "/records", authorization: "Bearer wrong").status == 401)
        #expect(await harness.send("POST", "/api/records/batch", body: body).status == 200)
        #expect(await harness.send("GET", "/api/records").status == 200)
        #expect(await harness.send("GET", "/records/batch").status == 405)
        #expect(await harness.send("DELETE", "/records").status == 405)
    }

    @Test func anAnsweredBatchSurvivesACrash() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sybil-records-\(UUID())")
        defer { try? FileManager.default.removeItem(at: directory) }
        let records = try (1...3).map { try Self.mood($0) }
        // The first server is never shut down: a second opens the same files, as after a crash.
        let first = try AppHarness { $0.storage = .directory(directory.path) }
        _ = try await post(first, records)
        let second = try AppHarness { $0.storage = .directory(directory.path) }
        #expect(try await page(second).records == records)
        #expect(try await post(second, records).map(\.status) == [.duplicate, .duplicate, .duplicate])
        withExtendedLifetime(first) {}
    }
}
