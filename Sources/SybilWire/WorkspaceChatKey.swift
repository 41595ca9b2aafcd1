/// Identifies one workspace chat: a session in a project folder on a desktop. Hosts are
/// cached by this key.
public struct WorkspaceChatKey: Sendable, Hashable, CustomStringConvertible {
    /// The desktop that runs the session.
    public var desktopId: String
    /// The project folder the session belongs to.
    public var projectId: String
    /// The session.
    public var sessionId: String

    /// Creates a key.
    public init(desktopId: String, projectId: String, sessionId: String) {
        self.desktopId = desktopId
        self.projectId = projectId
        self.sessionId = sessionId
    }

    /// `desktop/project/session`, for logs and test messages.
    public var description: String { "\(desktopId)/\(projectId)/\(sessionId)" }
}
