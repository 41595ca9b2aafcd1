import SybilCore

/// The answer to `GET records?after=&limit=`: records in the order the server stored them,
/// the cursor to ask from next, and whether more follow.
public struct RecordPage: Sendable, Hashable {
    /// Page sizes a client may ask for.
    public static let limitRange: ClosedRange<Int> = 1...500
    /// The page size when `limit` is absent.
    public static let defaultLimit = 100

    /// The records, oldest stored first.
    public var records: [Record]
    /// The cursor after the last record (or the request's `after`); `nil` for an empty log.
    public var nextCursor: RecordCursor?
    /// Whether records follow `nextCursor`.
    public var hasMore: Bool

    /// Creates a page.
    public init(records: [Record], nextCursor: RecordCursor?, hasMore: Bool) {
        self.records = records
        self.nextCursor = nextCursor
        self.hasMore = hasMore
    }

    /// Decodes a page: at most ``limitRange`` records with distinct ids, `nextCursor` present
    /// (`null` only when there are no records), `hasMore`. Other members are ignored.
    public static func decode(_ value: JSONValue, at path: JSONPath) throws(JSONError) -> RecordPage {
        let reader = try JSONObjectReader(value, at: path)
        let listPath = path.appending(key: "records")
        let items = try reader.array("records")
        guard items.count <= limitRange.upperBound else {
            throw .contract(listPath, "must hold at most \(limitRange.upperBound) records, got \(items.count)")
        }
        var records: [Record] = []
        var ids = Set<String>()
        for (index, item) in items.enumerated() {
            let record = try Record.decode(item, at: listPath.appending(index: index))
            guard ids.insert(record.id).inserted else {
                throw .contract(
                    listPath.appending(index: index).appending(key: "id"), "record \(record.id) appears twice")
            }
            records.append(record)
        }
        let next: RecordCursor? =
            switch try reader.value("nextCursor") {
            case .null: nil
            case let cursor: try RecordCursor.decode(cursor, at: path.appending(key: "nextCursor"))
            }
        if next == nil && !records.isEmpty {
            throw .contract(path.appending(key: "nextCursor"), "must be a cursor when the page holds records")
        }
        return RecordPage(records: records, nextCursor: next, hasMore: try reader.bool("hasMore"))
    }

    /// The page as contract JSON.
    public var jsonValue: JSONValue {
        [
            "records": .array(records.map(\.jsonValue)), "nextCursor": nextCursor?.jsonValue ?? .null,
            "hasMore": .bool(hasMore),
        ]
    }
}
