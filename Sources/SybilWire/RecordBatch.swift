import SybilCore

/// The body of `POST records/batch`: `{"records": [...]}` with 1…500 records.
///
/// A body that breaks these rules is refused as a whole; a single record that breaks its own
/// rules is kept as ``Entry/malformed(id:error:)`` so the server can reject it alone and still
/// store the others.
public struct RecordBatch: Sendable, Hashable {
    /// One element of `records`.
    public enum Entry: Sendable, Hashable {
        /// A record that passed every rule.
        case record(Record)
        /// A record that did not: its id when that could be read, and the first problem found
        /// (the path names the record and the member, e.g. `records[3].score`).
        case malformed(id: String?, error: JSONError)
    }

    /// The most records in one batch.
    public static let maxRecords = 500
    /// The largest body the server reads (4 MiB): 500 records with every note at its limit
    /// and every byte of it escaped six-fold still fit, so any batch the client makes fits.
    public static let maxBodyBytes = 4 << 20

    /// The records in the order sent.
    public var entries: [Entry]

    /// A batch of checked records (1…``maxRecords``).
    public init(records: [Record]) {
        precondition(
            (1...Self.maxRecords).contains(records.count), "a batch holds 1…\(Self.maxRecords) records")
        entries = records.map(Entry.record)
    }

    private init(entries: [Entry]) {
        self.entries = entries
    }

    /// Decodes a body: an object whose `records` is an array of 1…``maxRecords`` elements
    /// (other members are ignored). Each element is decoded on its own.
    public static func decode(_ value: JSONValue, at path: JSONPath) throws(JSONError) -> RecordBatch {
        let reader = try JSONObjectReader(value, at: path)
        let items = try reader.array("records")
        let listPath = path.appending(key: "records")
        guard (1...maxRecords).contains(items.count) else {
            throw .contract(listPath, "must hold 1…\(maxRecords) records, got \(items.count)")
        }
        var entries: [Entry] = []
        entries.reserveCapacity(items.count)
        for (index, item) in items.enumerated() {
            let itemPath = listPath.appending(index: index)
            do {
                entries.append(.record(try Record.decode(item, at: itemPath)))
            } catch {
                entries.append(.malformed(id: readableID(item), error: error))
            }
        }
        return RecordBatch(entries: entries)
    }

    /// The id of a malformed element when it is a well-formed record id, else `nil` (a bad id
    /// is never echoed).
    private static func readableID(_ item: JSONValue) -> String? {
        guard case .object(let object) = item, case .string(let id)? = object["id"], Record.isRecordID(id) else {
            return nil
        }
        return id
    }

    /// The body as contract JSON. Malformed entries cannot be encoded (only a decoder makes
    /// them), so this holds checked records only.
    public var jsonValue: JSONValue {
        let records: [JSONValue] = entries.compactMap {
            if case .record(let record) = $0 { return record.jsonValue }
            return nil
        }
        return ["records": .array(records)]
    }
}
