import SybilCore

/// A desktop as `desktops.list` answers it: `{desktopId, name, online}`.
public struct WorkspaceDesktop: Sendable, Hashable {
    /// The desktop's id.
    public var desktopId: String
    /// Its name, for people.
    public var name: String
    /// Whether it answers now (an offline desktop's calls are `503`).
    public var online: Bool

    /// Creates a desktop.
    public init(desktopId: String, name: String, online: Bool) {
        self.desktopId = desktopId
        self.name = name
        self.online = online
    }

    /// Decodes one desktop, exactly its three members.
    public static func decode(_ value: JSONValue, at path: JSONPath) throws(JSONError) -> WorkspaceDesktop {
        let reader = try JSONObjectReader(value, at: path)
        try reader.requireExactKeys(["desktopId", "name", "online"])
        return WorkspaceDesktop(
            desktopId: try reader.nonEmptyString("desktopId"), name: try reader.string("name"),
            online: try reader.bool("online"))
    }

    /// The desktop as contract JSON.
    public var jsonValue: JSONValue {
        ["desktopId": .string(desktopId), "name": .string(name), "online": .bool(online)]
    }

    /// Decodes the result of `desktops.list`: `{"desktops": […]}`.
    public static func decodeList(_ value: JSONValue, at path: JSONPath) throws(JSONError) -> [WorkspaceDesktop] {
        try WorkspaceListing.decode(value, at: path, key: "desktops", decode)
    }

    /// The result of `desktops.list`.
    public static func listJSON(_ desktops: [WorkspaceDesktop]) -> JSONValue {
        ["desktops": .array(desktops.map(\.jsonValue))]
    }
}
