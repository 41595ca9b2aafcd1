import SybilWire

/// A desktop as the sidebar lists it: its projects and their sessions, or, while it is
/// offline, only its name (marked offline).
public struct SidebarDesktop: Sendable, Hashable {
    /// A project folder on the desktop.
    public struct Project: Sendable, Hashable {
        /// The project's id.
        public var id: String
        /// Its name.
        public var name: String
        /// Its sessions, as the desktop lists them.
        public var sessions: [Session]

        /// Creates a project.
        public init(id: String, name: String, sessions: [Session]) {
            self.id = id
            self.name = name
            self.sessions = sessions
        }
    }

    /// A workspace session.
    public struct Session: Sendable, Hashable {
        /// The session's id.
        public var id: String
        /// Its title.
        public var title: String
        /// Whether a turn is running in it.
        public var running: Bool

        /// Creates a session.
        public init(id: String, title: String, running: Bool = false) {
            self.id = id
            self.title = title
            self.running = running
        }
    }

    /// The desktop's id.
    public var id: String
    /// Its name.
    public var name: String
    /// Whether it is online (an offline desktop lists no projects).
    public var online: Bool
    /// Its projects (empty while offline).
    public var projects: [Project]

    /// Creates a desktop.
    public init(id: String, name: String, online: Bool, projects: [Project] = []) {
        self.id = id
        self.name = name
        self.online = online
        self.projects = projects
    }
}
