import SybilCore

/// A row of a running turn, shown in the live overlay until the turn settles into history.
struct WorkspaceLiveBlock: Sendable, Hashable {
    var type: String
    var id: String
    /// Orders the block among the turn's rows (and after the history before it).
    var sourceOrder: [Int64]
    var timestamp: Int64
    var text: String
    var runId: String
    var operationId: String?
    var subagentThreadId: String?

    /// The block as the overlay carries it (origin `live`).
    var json: JSONValue {
        var members = [
            JSONMember("type", .string(type)), JSONMember("id", .string(id)), JSONMember("origin", "live"),
            JSONMember("sourceOrder", .array(sourceOrder.map { .number(JSONNumber($0)) })),
            JSONMember("timestamp", .number(JSONNumber(timestamp))), JSONMember("text", .string(text)),
            JSONMember("runId", .string(runId)),
        ]
        if let operationId { members.append(JSONMember("operationId", .string(operationId))) }
        if let subagentThreadId { members.append(JSONMember("subagentThreadId", .string(subagentThreadId))) }
        return .object(JSONObject(members))
    }

    /// The history row it settles into.
    var settledRow: WorkspaceStore.NewRow {
        WorkspaceStore.NewRow(type: type, text: text, timestamp: timestamp, subagentThreadId: subagentThreadId)
    }
}
