import SybilCore

/// The answer to `POST records/batch`: one ``RecordResult`` per record sent, in order.
public struct RecordBatchAnswer: Sendable, Hashable {
    /// The results, in the order the records were sent.
    public var results: [RecordResult]

    /// Creates an answer.
    public init(results: [RecordResult]) {
        self.results = results
    }

    /// Decodes `{"results": [...]}` (other members are ignored).
    public static func decode(_ value: JSONValue, at path: JSONPath) throws(JSONError) -> RecordBatchAnswer {
        let reader = try JSONObjectReader(value, at: path)
        let listPath = path.appending(key: "results")
        let items = try reader.array("results")
        guard items.count <= RecordBatch.maxRecords else {
            throw .contract(listPath, "must hold at most \(RecordBatch.maxRecords) results, got \(items.count)")
        }
        var results: [RecordResult] = []
        for (index, item) in items.enumerated() {
            results.append(try RecordResult.decode(item, at: listPath.appending(index: index)))
        }
        return RecordBatchAnswer(results: results)
    }

    /// Checks that this answers `records`: one result per record, each naming the record sent
    /// at its position. A client marks records synced only from an answer that passed.
    public func check(answering records: [Record], at path: JSONPath = .root) throws(JSONError) {
        let listPath = path.appending(key: "results")
        guard results.count == records.count else {
            let held = results.count == 1 ? "1 result" : "\(results.count) results"
            let sent = records.count == 1 ? "1 record" : "\(records.count) records"
            throw .contract(listPath, "holds \(held) for \(sent) sent")
        }
        for (index, (result, record)) in zip(results, records).enumerated() where result.id != record.id {
            throw .contract(
                listPath.appending(index: index).appending(key: "id"),
                "names \(result.id.map { JSONWriter.quoted($0) } ?? "null"), but record \(index) sent was \(record.id)")
        }
    }

    /// The answer as contract JSON.
    public var jsonValue: JSONValue {
        ["results": .array(results.map(\.jsonValue))]
    }
}
