import SybilCore

/// The desktop's answer to `run.codexChatSubmit`: `{"receipt": {operationId, mutationId,
/// status, runId | reason}}`.
public struct WorkspaceSubmitReceipt: Sendable, Hashable {
    /// What the desktop decided.
    public enum Outcome: Sendable, Hashable {
        /// `accepted`: the desktop owns delivery now; the message goes to `runId`.
        case accepted(runId: String)
        /// `rejected`: a final rejection, with the desktop's reason for people.
        case rejected(reason: String)
    }

    /// The submission's operation id.
    public var operationId: String
    /// The mutation the receipt is for.
    public var mutationId: String
    /// Accepted or rejected.
    public var outcome: Outcome

    /// Creates a receipt.
    public init(operationId: String, mutationId: String, outcome: Outcome) {
        self.operationId = operationId
        self.mutationId = mutationId
        self.outcome = outcome
    }

    /// Decodes a result `{"receipt": {…}}`, exactly the members its status allows.
    public static func decode(_ value: JSONValue, at path: JSONPath) throws(JSONError) -> WorkspaceSubmitReceipt {
        let outer = try JSONObjectReader(value, at: path)
        try outer.requireExactKeys(["receipt"])
        let reader = try JSONObjectReader(try outer.value("receipt"), at: path.appending(key: "receipt"))
        let outcome: Outcome
        switch try reader.string("status") {
        case "accepted":
            try reader.requireExactKeys(["operationId", "mutationId", "status", "runId"])
            outcome = .accepted(runId: try reader.nonEmptyString("runId"))
        case "rejected":
            try reader.requireExactKeys(["operationId", "mutationId", "status", "reason"])
            outcome = .rejected(reason: try reader.nonBlankString("reason"))
        case let other:
            throw .contract(
                reader.path.appending(key: "status"),
                "must be \"accepted\" or \"rejected\", got \(JSONWriter.quoted(other))")
        }
        return WorkspaceSubmitReceipt(
            operationId: try reader.nonEmptyString("operationId"), mutationId: try reader.nonEmptyString("mutationId"),
            outcome: outcome)
    }

    /// The result as contract JSON.
    public var jsonValue: JSONValue {
        var members = [
            JSONMember("operationId", .string(operationId)), JSONMember("mutationId", .string(mutationId)),
        ]
        switch outcome {
        case .accepted(let runId):
            members += [JSONMember("status", "accepted"), JSONMember("runId", .string(runId))]
        case .rejected(let reason):
            members += [JSONMember("status", "rejected"), JSONMember("reason", .string(reason))]
        }
        return ["receipt": .object(JSONObject(members))]
    }
}
