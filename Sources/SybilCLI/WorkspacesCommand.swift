import Foundation
import SybilClient
import SybilCore
import SybilNet
import SybilServer
import SybilStore
import SybilWire

/// `sybil workspaces list|open|send`: the workspace chats (seed 000) from the command line,
/// through the same live desktop client, hosts, screen model, composer and outbox the apps use.
/// Without `--api-url` the embedded reference server plays the desktop, with its data under
/// `$XDG_DATA_HOME/sybil/embedded` so that what one command sends the next one shows.
enum WorkspacesCommand {
    static let name = "sybil workspaces"

    /// Options every subcommand takes.
    struct Common {
        var target: ServerTarget
        var inMemory = false

        init(environment: [String: String]) {
            target = ServerTarget(environment: environment)
        }

        /// Takes a common option; returns whether `option` was one.
        mutating func parse(_ option: String, inlineValue: String?, cursor: inout ArgumentCursor) throws(UsageError)
            -> Bool
        {
            if try target.parse(option, inlineValue: inlineValue, cursor: &cursor) { return true }
            guard option == "--in-memory" else { return false }
            inMemory = true
            return true
        }

        mutating func validate(command: String) throws(UsageError) {
            try target.validate(command: command)
            if inMemory && target.apiURL != nil {
                throw UsageError(command: command, message: "--in-memory is for the embedded server, not --api-url")
            }
        }
    }

    static func run(_ arguments: [String], io: CommandIO) async throws(UsageError) -> ExitCode {
        guard let first = arguments.first else {
            io.writeOutput(HelpText.workspaces)
            return .success
        }
        let rest = Array(arguments.dropFirst())
        switch first {
        case "-h", "--help":
            io.writeOutput(HelpText.workspaces)
            return .success
        case "list":
            return try await WorkspacesListCommand.run(rest, io: io)
        case "open":
            return try await WorkspacesOpenCommand.run(rest, io: io)
        case "send":
            return try await WorkspacesSendCommand.run(rest, io: io)
        default:
            throw UsageError(command: name, message: "unknown subcommand '\(first)'")
        }
    }

    /// Connects as `common` says: the embedded desktop keeps its data on disk unless
    /// `--in-memory`, and runs turns at a readable pace.
    @MainActor
    static func connect(_ common: Common, command: String, io: CommandIO) -> ServerTarget.Connection? {
        common.target.connect(command: command, io: io) { options in
            options.pace = .milliseconds(15)
            options.storage =
                common.inMemory
                ? .inMemory : .directory(XDGDirectories(environment: io.environment).sybilData + "/embedded")
        }
    }

    /// Walks a subcommand's arguments: positional words, `-h`/`--help` (then `nil`), the
    /// common options, and the subcommand's own through `own` (which returns whether it took
    /// the option); validates the common options at the end.
    static func parse(
        _ arguments: [String], environment: [String: String], command: String,
        own: (String, String?, inout ArgumentCursor) throws(UsageError) -> Bool = { _, _, _ in false }
    ) throws(UsageError) -> (common: Common, words: [String])? {
        var cursor = ArgumentCursor(arguments, command: command)
        var common = Common(environment: environment)
        var words: [String] = []
        while let next = cursor.next() {
            switch next {
            case .positional(let word): words.append(word)
            case .option(let option, let inline):
                if option == "-h" || option == "--help" { return nil }
                if try own(option, inline, &cursor) { continue }
                guard try common.parse(option, inlineValue: inline, cursor: &cursor) else {
                    throw cursor.unknown(option)
                }
            }
        }
        try common.validate(command: command)
        return (common, words)
    }

    /// Runs a subcommand: parses (`nil` prints `help`), connects, runs `body`, disconnects.
    static func run<Request>(
        _ arguments: [String], io: CommandIO, command: String, help: String, common: (Request) -> Common,
        parse: ([String], [String: String]) throws(UsageError) -> Request?,
        _ body: @MainActor (Request, ServerTarget.Connection) async -> ExitCode
    ) async throws(UsageError) -> ExitCode {
        guard let request = try parse(arguments, io.environment) else {
            io.writeOutput(help)
            return .success
        }
        guard let connection = await connect(common(request), command: command, io: io) else { return .unavailable }
        let status = await body(request, connection)
        await connection.close()
        return status
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
        WorkspaceDesktopClient(baseURL: connection.baseURL, http: URLSessionHTTPClient(), tokens: connection.tokens)
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
