import Foundation
import SybilClient
import SybilCore
import SybilWire

/// `sybil workspaces list`: desktops, their projects and sessions, with state.
enum WorkspacesListCommand {
    static let name = "sybil workspaces list"

    static func run(_ arguments: [String], io: CommandIO) async throws(UsageError) -> ExitCode {
        try await ClientCommand.run(
            arguments, io: io, spec: spec, common: \.common, parse: parse
        ) { _, connection in
            await list(WorkspacesCommand.desktop(connection), io: io)
        }
    }

    /// The options, or `nil` when help was asked for; no arguments are taken.
    static func parse(_ arguments: [String], environment: [String: String]) throws(UsageError)
        -> (common: ClientCommand.Common, parsed: ParsedArguments<ClientCommand.Options>)?
    {
        try ClientCommand.parse(arguments, environment: environment, spec: spec)
    }

    private static func list(_ desktop: WorkspaceDesktopClient, io: CommandIO) async -> ExitCode {
        do {
            // Every id and name is the desktop's: one line each, shown, never obeyed.
            let shown = TerminalText.oneLine
            for listed in try await desktop.desktops() {
                let state = listed.online ? "online" : "offline"
                io.writeOutput("\(shown(listed.desktopId))  \(shown(listed.name))  \(state)\n")
                guard listed.online else { continue }
                for project in try await desktop.projects(desktopId: listed.desktopId) {
                    io.writeOutput("  \(shown(project.projectId))  \(shown(project.name))  \(shown(project.folder))\n")
                    for session in try await desktop.sessions(
                        desktopId: listed.desktopId, projectId: project.projectId)
                    {
                        let state = session.running ? "  running" : ""
                        let updated = Self.time(session.updatedAt)
                        io.writeOutput(
                            "    \(shown(session.sessionId))  \(shown(session.title))  updated \(updated)\(state)\n")
                    }
                }
            }
            return .success
        } catch {
            io.writeError("\(name): \(error)\n")
            return WorkspacesCommand.exitCode(for: error)
        }
    }

    /// `2025-11-29 07:00 UTC` for milliseconds since the epoch.
    static func time(_ milliseconds: Int64) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd HH:mm 'UTC'"
        return formatter.string(from: Date(timeIntervalSince1970: Double(milliseconds) / 1000))
    }
}
