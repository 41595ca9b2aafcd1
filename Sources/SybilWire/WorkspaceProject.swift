import SybilCore

/// A project folder on a desktop, as `projects.list` answers it: `{projectId, name, folder}`.
public struct WorkspaceProject: Sendable, Hashable {
    /// The project's id.
    public var projectId: String
    /// Its name, for people.
    public var name: String
    /// The folder on the desktop.
    public var folder: String

    /// Creates a project.
    public init(projectId: String, name: String, folder: String) {
        self.projectId = projectId
        self.name = name
        self.folder = folder
    }

    /// Decodes one project, exactly its three members.
    public static func decode(_ value: JSONValue, at path: JSONPath) throws(JSONError) -> WorkspaceProject {
        let reader = try JSONObjectReader(value, at: path)
        try reader.requireExactKeys(["projectId", "name", "folder"])
        return WorkspaceProject(
            projectId: try reader.nonEmptyString("projectId"), name: try reader.string("name"),
            folder: try reader.string("folder"))
    }

    /// The project as contract JSON.
    public var jsonValue: JSONValue {
        ["projectId": .string(projectId), "name": .string(name), "folder": .string(folder)]
    }

    /// Decodes the result of `projects.list`: `{"projects": […]}`.
    public static func decodeList(_ value: JSONValue, at path: JSONPath) throws(JSONError) -> [WorkspaceProject] {
        try WorkspaceListing.decode(value, at: path, key: "projects", decode)
    }

    /// The result of `projects.list`.
    public static func listJSON(_ projects: [WorkspaceProject]) -> JSONValue {
        ["projects": .array(projects.map(\.jsonValue))]
    }
}
