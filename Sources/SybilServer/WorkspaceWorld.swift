import SybilCore

/// The desktops, projects and seeded sessions the reference server plays (seed 000's
/// "desktop"). Desktops and projects are fixed; sessions and their history live in SQLite
/// and are seeded once, deterministically, from the scripted agent.
enum WorkspaceWorld {
    struct Desktop: Sendable {
        var desktopId: String
        var name: String
        var online: Bool
    }

    struct Project: Sendable {
        var desktopId: String
        var projectId: String
        var name: String
        var folder: String
    }

    struct SeedSession: Sendable {
        var desktopId: String
        var projectId: String
        var sessionId: String
        var title: String
        var turns: Int
    }

    static let desktops = [
        Desktop(desktopId: "desk-1", name: "Studio Mac", online: true),
        Desktop(desktopId: "desk-2", name: "Build Box", online: false),
    ]

    static let projects = [
        Project(desktopId: "desk-1", projectId: "proj-app", name: "App", folder: "/Users/ana/src/app"),
        Project(desktopId: "desk-1", projectId: "proj-site", name: "Site", folder: "/Users/ana/src/site"),
        Project(desktopId: "desk-2", projectId: "proj-ci", name: "CI", folder: "/srv/ci"),
    ]

    static let sessions = [
        SeedSession(desktopId: "desk-1", projectId: "proj-app", sessionId: "sess-42", title: "Fix login", turns: 40),
        SeedSession(desktopId: "desk-1", projectId: "proj-app", sessionId: "sess-43", title: "New chat", turns: 0),
        SeedSession(desktopId: "desk-1", projectId: "proj-site", sessionId: "sess-50", title: "Landing page", turns: 2),
        SeedSession(desktopId: "desk-2", projectId: "proj-ci", sessionId: "sess-60", title: "Nightly build", turns: 1),
    ]

    /// The subagent thread seeded into sess-42's first reply.
    static let seededThreadId = "thr-7"

    /// Timestamps of seeded history start here (2025-11-29).
    static let seedEpoch: Int64 = 1_764_400_000_000
}
