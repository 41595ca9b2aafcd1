import SybilCore
import SybilHTTP
import SybilWire

/// The records surface (docs/api/records.md, seed 004): `POST records/batch` stores a batch of
/// local-first records idempotently by id and answers one result per record;
/// `GET records?after=&limit=` lists them in the order stored.
///
/// Bodies are SybilWire's ``RecordBatch`` and ``RecordBatchAnswer``, pages ``RecordPage``. A
/// body that is not a batch is a 400 naming the member; a record that breaks a rule is
/// rejected alone while the others are stored. The batch is committed before the answer
/// leaves, so a client that got `created` or `duplicate` may mark the record synced.
final class RecordsService: Sendable {
    let store: ServerRecordStore
    private let time: ServerTime

    init(store: ServerRecordStore, time: ServerTime) {
        self.store = store
        self.time = time
    }

    /// `POST records/batch`.
    func batch(_ request: HTTPServerRequest) async throws -> HTTPServerResponse {
        guard request.body.count <= RecordBatch.maxBodyBytes else {
            throw APIError(
                status: 413, message: "A records batch may be at most \(RecordBatch.maxBodyBytes) bytes.",
                code: "too_large", param: "body")
        }
        let value = try RequestBody.json(request.body)
        let batch: RecordBatch
        do {
            batch = try RecordBatch.decode(value, at: .root)
        } catch {
            throw APIError.invalid(
                error.path.isRoot ? "The body \(error.message)." : "\(error.path): \(error.message).",
                param: error.path.isRoot ? "body" : error.path.description)
        }
        let results = try await store.store(batch, at: time.epochMilliseconds())
        return .json(RecordBatchAnswer(results: results).jsonValue)
    }

    /// `GET records?after=CURSOR&limit=N`.
    func list(_ request: HTTPServerRequest) async throws -> HTTPServerResponse {
        var after: Int64 = 0
        if let text = try request.queryValue("after") {
            guard let cursor = RecordCursor(text) else {
                throw APIError.invalid(
                    "'after' must be a record cursor such as 42 (digits without sign or leading zeros), got \(JSONWriter.quoted(String(text.prefix(40)))).",
                    param: "after")
            }
            after = cursor.sequence
        }
        let limit = try Self.limit(request)
        return .json(try await store.page(after: after, limit: limit).jsonValue)
    }

    /// `limit`: digits only, within ``RecordPage/limitRange``; the default when absent.
    static func limit(_ request: HTTPServerRequest) throws -> Int {
        guard let text = try request.queryValue("limit") else { return RecordPage.defaultLimit }
        let range = RecordPage.limitRange
        guard (1...3).contains(text.utf8.count), text.utf8.allSatisfy({ (0x30...0x39).contains($0) }),
            let limit = Int(text), range.contains(limit)
        else {
            throw APIError.invalid(
                "'limit' must be an integer from \(range.lowerBound) to \(range.upperBound), got \(JSONWriter.quoted(String(text.prefix(40)))).",
                param: "limit")
        }
        return limit
    }
}
