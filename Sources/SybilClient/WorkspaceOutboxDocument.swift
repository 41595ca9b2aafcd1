import SybilCore
import SybilTimeline
import SybilWire

/// The stored form of the outbox copy, version 2: per session scope its operation order and,
/// per operation, either the pending entry or the fact that it completed.
///
/// ```json
/// {"version": 2, "generation": 4, "scopes": [{"desktopId": "d", "projectId": "p",
///  "sessionId": "s", "order": ["op-1", "op-2"], "operations": {
///  "op-1": {"state": "completed"}, "op-2": {"state": "pending", "entry": {…}}}}]}
/// ```
struct WorkspaceOutboxDocument: Sendable, Hashable {
    static let version: Int64 = 2

    enum OperationState: Sendable, Hashable {
        case pending(WorkspaceOutboxEntry)
        case completed
    }

    struct Scope: Sendable, Hashable {
        var chat: WorkspaceChatKey
        var order: [String] = []
        var operations: [String: OperationState] = [:]
    }

    var generation: Int64 = 1
    var scopes: [Scope] = []

    // MARK: Access

    func scopeIndex(_ chat: WorkspaceChatKey) -> Int? {
        scopes.firstIndex { $0.chat == chat }
    }

    func state(of operationId: String, in chat: WorkspaceChatKey) -> OperationState? {
        scopeIndex(chat).flatMap { scopes[$0].operations[operationId] }
    }

    func pendingEntries(in chat: WorkspaceChatKey) -> [WorkspaceOutboxEntry] {
        guard let index = scopeIndex(chat) else { return [] }
        let scope = scopes[index]
        return scope.order.compactMap { operationId in
            if case .pending(let entry)? = scope.operations[operationId] { return entry }
            return nil
        }
    }

    mutating func set(_ state: OperationState, for operationId: String, in chat: WorkspaceChatKey) {
        let index: Int
        if let existing = scopeIndex(chat) {
            index = existing
        } else {
            scopes.append(Scope(chat: chat))
            index = scopes.count - 1
        }
        if scopes[index].operations.updateValue(state, forKey: operationId) == nil {
            scopes[index].order.append(operationId)
        }
    }

    /// The launch cleanup: completed operations leave, empty scopes too, and a new
    /// generation begins.
    mutating func startNewGeneration() {
        generation += 1
        for index in scopes.indices {
            let operations = scopes[index].operations.filter { $0.value != .completed }
            scopes[index].order.removeAll { operations[$0] == nil }
            scopes[index].operations = operations
        }
        scopes.removeAll { $0.order.isEmpty }
    }

    // MARK: JSON

    var jsonValue: JSONValue {
        .object(
            JSONObject([
                JSONMember("version", .number(JSONNumber(Self.version))),
                JSONMember("generation", .number(JSONNumber(generation))),
                JSONMember("scopes", .array(scopes.map(Self.scopeJSON))),
            ]))
    }

    private static func scopeJSON(_ scope: Scope) -> JSONValue {
        let operations = scope.order.compactMap { operationId -> JSONMember? in
            scope.operations[operationId].map { JSONMember(operationId, stateJSON($0)) }
        }
        return [
            "desktopId": .string(scope.chat.desktopId), "projectId": .string(scope.chat.projectId),
            "sessionId": .string(scope.chat.sessionId), "order": .array(scope.order.map(JSONValue.string)),
            "operations": .object(JSONObject(operations)),
        ]
    }

    /// An operation's stored state: `{"state": "completed"}` or `{"state": "pending",
    /// "entry": {…}}`.
    static func stateJSON(_ state: OperationState) -> JSONValue {
        switch state {
        case .pending(let entry): ["state": "pending", "entry": entry.jsonValue]
        case .completed: ["state": "completed"]
        }
    }

    /// Decodes what can be read. The document's frame (version, generation, scopes) must be
    /// valid or the whole thing fails; a scope or an operation that breaks the format is left
    /// out and reported, so that every readable entry survives.
    static func decode(_ bytes: [UInt8]) throws(JSONError) -> (Self, [JSONError]) {
        let reader = try JSONObjectReader(try JSONReader().parse(bytes), at: .root)
        try reader.requireExactKeys(["version", "generation", "scopes"])
        let version = try reader.integer("version")
        guard version == Self.version else {
            throw .contract(.root.appending(key: "version"), "only version 2 is understood, got \(version)")
        }
        var document = Self(generation: try reader.integer("generation", in: 0...JSONValueReader.maxSafeInteger))
        var problems: [JSONError] = []
        for (index, value) in try reader.array("scopes").enumerated() {
            let path = JSONPath.root.appending(key: "scopes").appending(index: index)
            do throws(JSONError) {
                let (scope, scopeProblems) = try decodeScope(value, at: path)
                document.scopes.append(scope)
                problems += scopeProblems
            } catch {
                problems.append(error)
            }
        }
        return (document, problems)
    }

    private static func decodeScope(_ value: JSONValue, at path: JSONPath) throws(JSONError) -> (Scope, [JSONError]) {
        let reader = try JSONObjectReader(value, at: path)
        try reader.requireExactKeys(["desktopId", "projectId", "sessionId", "order", "operations"])
        let chat = WorkspaceChatKey(
            desktopId: try reader.nonEmptyString("desktopId"), projectId: try reader.nonEmptyString("projectId"),
            sessionId: try reader.nonEmptyString("sessionId"))
        let operations = try JSONObjectReader(try reader.value("operations"), at: path.appending(key: "operations"))
        var scope = Scope(chat: chat)
        var problems: [JSONError] = []
        for (index, item) in try reader.array("order").enumerated() {
            let operationId = try JSONValueReader.string(item, at: path.appending(key: "order").appending(index: index))
            let statePath = operations.path.appending(key: operationId)
            do throws(JSONError) {
                scope.operations[operationId] = try decodeState(
                    try operations.value(operationId), of: operationId, at: statePath, chat: chat)
                scope.order.append(operationId)
            } catch {
                problems.append(error)
            }
        }
        return (scope, problems)
    }

    /// Decodes an operation's stored state (``stateJSON(_:)``) at `path`; a pending entry must
    /// carry `operationId`.
    static func decodeState(
        _ value: JSONValue, of operationId: String, at path: JSONPath, chat: WorkspaceChatKey
    ) throws(JSONError) -> OperationState {
        let state = try JSONObjectReader(value, at: path)
        switch try state.string("state") {
        case "completed":
            try state.requireExactKeys(["state"])
            return .completed
        case "pending":
            try state.requireExactKeys(["state", "entry"])
            let entry = try WorkspaceOutboxEntry.decode(
                try state.value("entry"), at: path.appending(key: "entry"), chat: chat)
            guard entry.operationId == operationId else {
                throw .contract(
                    path.appending(key: "entry").appending(key: "operationId"),
                    "does not match its key \(JSONWriter.quoted(operationId))")
            }
            return .pending(entry)
        case let other:
            throw .contract(path.appending(key: "state"), "unknown state \(JSONWriter.quoted(other))")
        }
    }
}
