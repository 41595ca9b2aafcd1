import SybilCore
import SybilWire
import Testing

/// Batches, results, cursors and pages of the records contract (docs/api/records.md).
@Suite("Records batch contract", .timeLimit(.minutes(2)))
struct RecordBatchContractTests {
    static func ids(_ count: Int) -> [String] {
        (0..<count).map { index in
            let hex = String(index, radix: 16)
            return "00000000-0000-4000-8000-" + String(repeating: "0", count: 12 - hex.count) + hex
        }
    }

    static func records(_ count: Int) throws -> [Record] {
        try ids(count).map { try Record(id: $0, createdAt: 1, payload: .mood(score: 3, note: nil)) }
    }

    private func body(_ items: [JSONValue]) -> JSONValue { ["records": .array(items)] }

    @Test func aBatchHoldsOneToFiveHundredRecords() throws {
        for count in [1, 500] {
            let batch = try RecordBatch.decode(body(try Self.records(count).map(\.jsonValue)), at: .root)
            #expect(batch.entries.count == count)
        }
        for count in [0, 501] {
            let items = Array(repeating: RecordContractTests.json("mood"), count: count)
            expectContractRejection(at: "records", "must hold 1…500 records, got \(count)") {
                try RecordBatch.decode(body(items), at: .root)
            }
        }
        expectContractRejection(at: "records", "missing") { try RecordBatch.decode(["other": 1], at: .root) }
        expectContractRejection(at: "records", "expected an array") {
            try RecordBatch.decode(["records": "x"], at: .root)
        }
        expectContractRejection(at: "$", "expected an object") { try RecordBatch.decode([1], at: .root) }
    }

    @Test func aMalformedRecordIsKeptAloneWithItsPathAndReadableID() throws {
        let good = RecordContractTests.json("mood")
        let badScore = RecordContractTests.json("mood", ["id": "00000000-0000-4000-8000-000000000001", "score": 9])
        let badID = RecordContractTests.json("mood", ["id": "nope"])
        let batch = try RecordBatch.decode(body([good, badScore, badID, 7]), at: .root)
        #expect(batch.entries.count == 4)
        guard case .record = batch.entries[0] else { return #expect(Bool(false), "the good record decodes") }
        guard case .malformed(let id, let error) = batch.entries[1] else { return #expect(Bool(false)) }
        #expect(id == "00000000-0000-4000-8000-000000000001")
        #expect(error.path.description == "records[1].score")
        guard case .malformed(nil, let idError) = batch.entries[2] else { return #expect(Bool(false)) }
        #expect(idError.path.description == "records[2].id")
        guard case .malformed(nil, let typeError) = batch.entries[3] else { return #expect(Bool(false)) }
        #expect(typeError.path.description == "records[3]")
    }

    @Test func aBatchRoundTrips() throws {
        let records = try Self.records(3)
        let batch = RecordBatch(records: records)
        #expect(try RecordBatch.decode(batch.jsonValue, at: .root) == batch)
    }

    @Test func theLargestValidBatchFitsTheBodyLimit() throws {
        // Every note byte a control character: escaped six-fold by the writer.
        let note = String(repeating: "\u{1}", count: Record.maxNoteBytes)
        let records = try Self.ids(RecordBatch.maxRecords).map {
            try Record(id: $0, createdAt: Record.createdAtRange.upperBound, payload: .mood(score: 5, note: note))
        }
        let bytes = JSONWriter().bytes(from: RecordBatch(records: records).jsonValue)
        #expect(bytes.count <= RecordBatch.maxBodyBytes)
        #expect(bytes.count > 3_000_000)
    }

    @Test func resultsDecodeAndCarryAnErrorOnlyWhenRejected() throws {
        let rejection = RecordResult.Rejection(code: "record_conflict", message: "taken", param: "records[0].id")
        let results = [
            RecordResult(id: "a", status: .created), RecordResult(id: "b", status: .duplicate),
            RecordResult(id: nil, status: .rejected, error: rejection),
        ]
        let answer = RecordBatchAnswer(results: results)
        #expect(try RecordBatchAnswer.decode(answer.jsonValue, at: .root) == answer)
        expectContractRejection(at: "results[0].error", "missing") {
            try RecordBatchAnswer.decode(["results": [["id": "a", "status": "rejected"]]], at: .root)
        }
        expectContractRejection(at: "results[0].error", "only a rejected record") {
            try RecordBatchAnswer.decode(
                ["results": [["id": "a", "status": "created", "error": ["code": "x", "message": "y"]]]], at: .root)
        }
        expectContractRejection(at: "results[0].id", "must name the record") {
            try RecordBatchAnswer.decode(["results": [["id": nil, "status": "duplicate"]]], at: .root)
        }
        expectContractRejection(at: "results[0].status", "must be") {
            try RecordBatchAnswer.decode(["results": [["id": "a", "status": "stored"]]], at: .root)
        }
        let tooMany: JSONValue = ["results": .array(Array(repeating: ["id": "a", "status": "created"], count: 501))]
        expectContractRejection(at: "results", "at most 500") { try RecordBatchAnswer.decode(tooMany, at: .root) }
    }

    @Test func anAnswerMustMatchTheRecordsSentOneByOne() throws {
        let records = try Self.records(2)
        let right = RecordBatchAnswer(results: records.map { RecordResult(id: $0.id, status: .created) })
        try right.check(answering: records)
        expectContractRejection(at: "results", "holds 1 result for 2 records sent") {
            try RecordBatchAnswer(results: Array(right.results.prefix(1))).check(answering: records)
        }
        expectContractRejection(at: "results[1].id", "but record 1 sent") {
            try RecordBatchAnswer(results: [right.results[0], right.results[0]]).check(answering: records)
        }
    }

    @Test func cursorsAreCanonicalDecimalSequences() {
        #expect(RecordCursor("0")?.sequence == 0)
        #expect(RecordCursor("42")?.sequence == 42)
        #expect(RecordCursor("9223372036854775807")?.sequence == Int64.max)
        for bad in [
            "", "-1", "+4", "042", "00", "4.0", "1e3", " 4", "9223372036854775808", "99999999999999999999", "x",
        ] {
            #expect(RecordCursor(bad) == nil, "\(bad)")
        }
        #expect(RecordCursor(sequence: 7).description == "7")
    }

    @Test func pagesDecodeWithDistinctRecordsAndACursor() throws {
        let records = try Self.records(2)
        let page = RecordPage(records: records, nextCursor: RecordCursor(sequence: 2), hasMore: false)
        #expect(try RecordPage.decode(page.jsonValue, at: .root) == page)
        let empty = RecordPage(records: [], nextCursor: nil, hasMore: false)
        #expect(try RecordPage.decode(empty.jsonValue, at: .root) == empty)
        expectContractRejection(at: "nextCursor", "must be a cursor when") {
            try RecordPage.decode(
                ["records": .array(records.map(\.jsonValue)), "nextCursor": nil, "hasMore": false], at: .root)
        }
        expectContractRejection(at: "records[1].id", "appears twice") {
            try RecordPage.decode(
                ["records": [records[0].jsonValue, records[0].jsonValue], "nextCursor": "2", "hasMore": false],
                at: .root)
        }
        expectContractRejection(at: "nextCursor", "record cursor") {
            try RecordPage.decode(["records": [], "nextCursor": "-1", "hasMore": false], at: .root)
        }
    }
}
