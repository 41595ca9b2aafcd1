import SybilCore

/// A session as `sessions.list` answers it: `{sessionId, title, updatedAt, running}`.
/// `updatedAt` (ms) moves whenever the session's history changes.
public struct WorkspaceSessionSummary: Sendable, Hashable {
    /// The session's id.
    public var sessionId: String
    /// Its title.
    public var title: String
    /// When its history last changed, milliseconds since the epoch (0…2^53−1).
    public var updatedAt: Int64
    /// Whether a run is active in it.
    public var running: Bool

    /// Creates a summary.
    public init(sessionId: String, title: String, updatedAt: Int64, running: Bool) {
        self.sessionId = sessionId
        self.title = title
        self.updatedAt = updatedAt
        self.running = running
    }

    /// Decodes one session, exactly its four members.
    public static func decode(_ value: JSONValue, at path: JSONPath) throws(JSONError) -> WorkspaceSessionSummary {
        let reader = try JSONObjectReader(value, at: path)
        try reader.requireExactKeys(["sessionId", "title", "updatedAt", "running"])
        return WorkspaceSessionSummary(
            sessionId: try reader.nonEmptyString("sessionId"), title: try reader.string("title"),
            updatedAt: try reader.integer("updatedAt", in: 0...JSONValueReader.maxSafeInteger),
            running: try reader.bool("running"))
    }

    /// The session as contract JSON.
    public var jsonValue: JSONValue {
        [
            "sessionId": .string(sessionId), "title": .string(title), "updatedAt": .number(JSONNumber(updatedAt)),
            "running": .bool(running),
        ]
    }

    /// Decodes the result of `sessions.list`: `{"sessions": […]}`, newest first.
    public static func decodeList(_ value: JSONValue, at path: JSONPath) throws(JSONError)
        -> [WorkspaceSessionSummary]
    {
        try WorkspaceListing.decode(value, at: path, key: "sessions", decode)
    }

    /// The result of `sessions.list`.
    public static func listJSON(_ sessions: [WorkspaceSessionSummary]) -> JSONValue {
        ["sessions": .array(sessions.map(\.jsonValue))]
    }
}
