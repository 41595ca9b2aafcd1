import Foundation
import SybilClient
import SybilCore
import SybilHTTP
import SybilServer
import SybilStore
import SybilWire

/// `sybil workspaces list|open|send`: the workspace chats (seed 000) from the command line,
/// through the same live desktop client, hosts, screen model, composer and outbox the apps use.
/// Without `--api-url` the embedded reference server plays the desktop, with its data under
/// `$XDG_DATA_HOME/sybil/embedded` so that what one command sends the next one shows.
enum WorkspacesCommand {
    static let name = "sybil workspaces"

    /// The subcommands, one line each; each runs only against a server that offers workspaces.
    static let table = CommandTable(
        group: spec,
        entries: [
            .gated("list", .workspaces, WorkspacesListCommand.spec, WorkspacesListCommand.run),
            .gated("open", .workspaces, WorkspacesOpenCommand.spec, WorkspacesOpenCommand.run),
            .gated("send", .workspaces, WorkspacesSendCommand.spec, WorkspacesSendCommand.run),
        ])

    static func run(_ arguments: [String], io: CommandIO) async throws(UsageError) -> ExitCode {
        try await table.run(arguments, io: io)
    }

    /// The chat `session` names, or the exit status after saying on standard error why there
    /// is none.
    static func chat(_ session: String, desktop: WorkspaceDesktopClient, command: String, io: CommandIO) async
        -> ChatLookup
    {
        do {
            guard let found = try await resolve(session, desktop: desktop) else {
                io.writeError("\(command): no session '\(session)' on an online desktop; see sybil workspaces list\n")
                return .failed(.invalidData)
            }
            return .found(found)
        } catch {
            io.writeError("\(command): \(error)\n")
            return .failed(exitCode(for: error))
        }
    }

    /// A looked-up chat, or the status to exit with.
    enum ChatLookup {
        case found(WorkspaceChatKey)
        case failed(ExitCode)
    }

    /// The client over `connection`.
    static func desktop(_ connection: ServerTarget.Connection) -> WorkspaceDesktopClient {
        WorkspaceDesktopClient(baseURL: connection.baseURL, http: connection.http(), tokens: connection.tokens)
    }

    /// The chat `session` names: `DESKTOP/PROJECT/SESSION`, or a session id looked up on the
    /// online desktops.
    static func resolve(_ session: String, desktop: WorkspaceDesktopClient) async throws(WorkspaceDesktopError)
        -> WorkspaceChatKey?
    {
        let parts = session.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        if parts.count == 3, parts.allSatisfy({ !$0.isEmpty }) {
            return WorkspaceChatKey(desktopId: parts[0], projectId: parts[1], sessionId: parts[2])
        }
        for listed in try await desktop.desktops() where listed.online {
            for project in try await desktop.projects(desktopId: listed.desktopId) {
                let sessions = try await desktop.sessions(desktopId: listed.desktopId, projectId: project.projectId)
                if sessions.contains(where: { $0.sessionId == session }) {
                    return WorkspaceChatKey(
                        desktopId: listed.desktopId, projectId: project.projectId, sessionId: session)
                }
            }
        }
        return nil
    }

    /// The exit status for a desktop error: offline or unreachable 69, a broken answer 76,
    /// anything the desktop refused 65.
    static func exitCode(for error: WorkspaceDesktopError) -> ExitCode {
        switch error {
        case .desktopOffline, .transport, .server: .unavailable
        case .malformedAnswer: .protocolError
        case .conflict, .tooLarge, .notFound, .unauthorized, .invalidRequest: .invalidData
        }
    }
}
