import SybilCore

/// The run in progress in a workspace chat (`activeRun` in the load envelope).
///
/// `runId` is required and non-empty; the desktop's other members are kept unchanged in
/// ``members`` so that the normalised envelope loses nothing.
public struct WorkspaceActiveRun: Sendable, Hashable {
    /// The running run's id.
    public var runId: String
    /// All members as sent, `runId` included.
    public var members: JSONObject

    /// A run with only an id.
    public init(runId: String) {
        self.init(runId: runId, otherMembers: [])
    }

    /// A run with its id and, after it, `otherMembers` (e.g. `startedAt`).
    public init(runId: String, otherMembers: [JSONMember]) {
        self.runId = runId
        self.members = JSONObject([JSONMember("runId", .string(runId))] + otherMembers)
    }

    /// Decodes an active run object.
    public static func decode(_ value: JSONValue, at path: JSONPath) throws(JSONError) -> WorkspaceActiveRun {
        let reader = try JSONObjectReader(value, at: path)
        var run = WorkspaceActiveRun(runId: try reader.nonEmptyString("runId"))
        run.members = reader.object
        return run
    }

    /// The run as contract JSON.
    public var jsonValue: JSONValue { .object(members) }
}
