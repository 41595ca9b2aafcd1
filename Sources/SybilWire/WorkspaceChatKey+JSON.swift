import SybilCore

extension WorkspaceChatKey {
    /// The chat's three params members, in contract order.
    public var paramsMembers: [JSONMember] {
        [
            JSONMember("desktopId", .string(desktopId)), JSONMember("projectId", .string(projectId)),
            JSONMember("sessionId", .string(sessionId)),
        ]
    }

    /// The chat named by `params` (`desktopId`, `projectId`, `sessionId`, each non-empty).
    public static func decode(params reader: JSONObjectReader) throws(JSONError) -> WorkspaceChatKey {
        WorkspaceChatKey(
            desktopId: try reader.nonEmptyString("desktopId"), projectId: try reader.nonEmptyString("projectId"),
            sessionId: try reader.nonEmptyString("sessionId"))
    }
}
