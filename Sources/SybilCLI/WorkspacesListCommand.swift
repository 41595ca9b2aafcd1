import Foundation
import SybilClient
import SybilWire

/// `sybil workspaces list`: desktops, their projects and sessions, with state.
enum WorkspacesListCommand {
    static let name = "sybil workspaces list"

    static func run(_ arguments: [String], io: CommandIO) async throws(UsageError) -> ExitCode {
        var cursor = ArgumentCursor(arguments, command: name)
        var common = WorkspacesCommand.Common(environment: io.environment)
        while let next = cursor.next() {
            guard case .option(let option, let inline) = next else {
                throw UsageError(command: name, message: "takes options only, no arguments")
            }
            if option == "-h" || option == "--help" {
                io.writeOutput(HelpText.workspacesList)
                return .success
            }
            guard try common.parse(option, inlineValue: inline, cursor: &cursor) else { throw cursor.unknown(option) }
        }
        try common.validate(command: name)
        guard let connection = await WorkspacesCommand.connect(common, command: name, io: io) else {
            return .unavailable
        }
        let status = await list(WorkspacesCommand.desktop(connection), io: io)
        await connection.close()
        return status
    }

    private static func list(_ desktop: WorkspaceDesktopClient, io: CommandIO) async -> ExitCode {
        do {
            for listed in try await desktop.desktops() {
                io.writeOutput("\(listed.desktopId)  \(listed.name)  \(listed.online ? "online" : "offline")\n")
                guard listed.online else { continue }
                for project in try await desktop.projects(desktopId: listed.desktopId) {
                    io.writeOutput("  \(project.projectId)  \(project.name)  \(project.folder)\n")
                    for session in try await desktop.sessions(
                        desktopId: listed.desktopId, projectId: project.projectId)
                    {
                        let state = session.running ? "  running" : ""
                        io.writeOutput(
                            "    \(session.sessionId)  \(session.title)  updated \(Self.time(session.updatedAt))\(state)\n"
                        )
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
