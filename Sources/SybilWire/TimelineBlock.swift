import SybilCore

/// One timeline row of a workspace chat, exactly as the contract allows it (SPEC §3).
public struct TimelineBlock: Sendable, Hashable {
    /// The row's kind.
    public var type: TimelineRowType
    /// The row id; never empty.
    public var id: String
    /// Confirmed history or live state.
    public var origin: TimelineOrigin
    /// The row's position in the desktop's source log; never empty.
    public var sourceOrder: [UInt64]
    /// When the row was created, in milliseconds since 1970 (an integer).
    public var timestamp: Int64
    /// The row's text (may be empty, e.g. for an activity row without output yet).
    public var text: String
    /// The run the row belongs to; required for live rows.
    public var runId: String?
    /// The submission that created the row; required for live user rows.
    public var operationId: String?
    /// For a subagent panel row, the thread it opens in its own viewer.
    public var subagentThreadId: String?

    /// Creates a row; the caller is responsible for the contract (use ``decode(_:at:)`` for input).
    public init(
        type: TimelineRowType, id: String, origin: TimelineOrigin, sourceOrder: [UInt64], timestamp: Int64,
        text: String, runId: String? = nil, operationId: String? = nil, subagentThreadId: String? = nil
    ) {
        self.type = type
        self.id = id
        self.origin = origin
        self.sourceOrder = sourceOrder
        self.timestamp = timestamp
        self.text = text
        self.runId = runId
        self.operationId = operationId
        self.subagentThreadId = subagentThreadId
    }

    /// The splice key: the typed identity used to match this row.
    public var identity: TimelineRowIdentity {
        switch origin {
        case .canonical:
            return .row(id)
        case .live:
            if type == .user, let operationId { return .operation(operationId) }
            return .runRow(runId: runId ?? "", rowId: id)
        }
    }

    /// The members a row may have.
    public static let keys = [
        "type", "id", "origin", "sourceOrder", "timestamp", "text", "runId", "operationId", "subagentThreadId",
    ]

    /// Decodes and validates one row.
    public static func decode(_ value: JSONValue, at path: JSONPath) throws(JSONError) -> TimelineBlock {
        let reader = try JSONObjectReader(value, at: path)
        try reader.rejectUnknownKeys(keys)
        let type = try reader.oneOf("type", TimelineRowType.self)
        let id = try reader.nonEmptyString("id")
        let origin = try reader.oneOf("origin", TimelineOrigin.self)
        let orderValues = try reader.array("sourceOrder")
        guard !orderValues.isEmpty else {
            throw .contract(path.appending(key: "sourceOrder"), "must be a non-empty array of unsigned integers")
        }
        var sourceOrder: [UInt64] = []
        sourceOrder.reserveCapacity(orderValues.count)
        for (position, element) in orderValues.enumerated() {
            sourceOrder.append(
                try JSONValueReader.unsignedInteger(
                    element, at: path.appending(key: "sourceOrder").appending(index: position)))
        }
        let timestamp = try reader.integer("timestamp")
        let text = try reader.string("text")
        let runId = try reader.optionalNonEmptyString("runId")
        let operationId = try reader.optionalNonEmptyString("operationId")
        let subagentThreadId = try reader.optionalNonEmptyString("subagentThreadId")
        if origin == .live {
            guard runId != nil else {
                throw .contract(path.appending(key: "runId"), "a live row needs a runId")
            }
            if type == .user, operationId == nil {
                throw .contract(path.appending(key: "operationId"), "a live user row needs an operationId")
            }
        }
        return TimelineBlock(
            type: type, id: id, origin: origin, sourceOrder: sourceOrder, timestamp: timestamp, text: text,
            runId: runId, operationId: operationId, subagentThreadId: subagentThreadId)
    }

    /// The row as contract JSON, members in contract order, absent optionals omitted.
    public var jsonValue: JSONValue {
        var members: [JSONMember] = [
            JSONMember("type", .string(type.rawValue)),
            JSONMember("id", .string(id)),
            JSONMember("origin", .string(origin.rawValue)),
            JSONMember("sourceOrder", .array(sourceOrder.map { .number(JSONNumber($0)) })),
            JSONMember("timestamp", .number(JSONNumber(timestamp))),
            JSONMember("text", .string(text)),
        ]
        if let runId { members.append(JSONMember("runId", .string(runId))) }
        if let operationId { members.append(JSONMember("operationId", .string(operationId))) }
        if let subagentThreadId { members.append(JSONMember("subagentThreadId", .string(subagentThreadId))) }
        return .object(JSONObject(members))
    }
}
