import Foundation
import SybilClient
import SybilCore
import SybilNet
import SybilServer
import SybilTimeline
import SybilWire

/// `sybil workspaces open SESSION [--thread ID] [--no-follow]`: the chat's display rows as
/// text through the host and its screen model, then live updates from the desktop's events
/// until SIGINT or SIGTERM.
enum WorkspacesOpenCommand {
    static let name = "sybil workspaces open"

    struct Request {
        var common: ClientCommand.Common
        var session: String
        var threadId: String?
        var follow = true
    }

    static func run(_ arguments: [String], io: CommandIO) async throws(UsageError) -> ExitCode {
        try await ClientCommand.run(
            arguments, io: io, spec: spec, common: \.common, parse: parse
        ) { request, connection in
            await open(request, connection: connection, io: io)
        }
    }

    static func parse(_ arguments: [String], environment: [String: String]) throws(UsageError) -> Request? {
        guard
            let (common, parsed) = try ClientCommand.parse(
                arguments, environment: environment, spec: spec)
        else { return nil }
        let threadId = parsed.options.thread
        let follow = !parsed.options.noFollow
        guard let session = parsed.positionals.first, !session.isEmpty else {
            throw UsageError(command: name, message: "needs one SESSION, e.g. sybil workspaces open sess-42")
        }
        return Request(common: common, session: session, threadId: threadId, follow: follow)
    }

    @MainActor
    private static func open(_ request: Request, connection: ServerTarget.Connection, io: CommandIO) async
        -> ExitCode
    {
        let desktop = WorkspacesCommand.desktop(connection)
        let chat: WorkspaceChatKey
        switch await WorkspacesCommand.chat(request.session, desktop: desktop, command: name, io: io) {
        case .found(let found): chat = found
        case .failed(let status): return status
        }
        if let threadId = request.threadId {
            return await openThread(threadId, of: chat, desktop: desktop, io: io)
        }
        // The app's host cache: the chat is selected (mounted and activated) like a tapped row.
        let cache = WorkspaceSessionParts.hostCache(desktop: desktop, clock: ContinuousClock())
        cache.select(chat)
        guard let host = cache.selectedHost else { return .success }
        let screen = WorkspaceChatScreenModel(host: host, clock: ContinuousClock())
        defer {
            screen.close()
            cache.select(nil)
        }
        await ObservationWait.until { host.appliedLoads > 0 || host.lastLoadError != nil }
        if let error = host.lastLoadError, host.appliedLoads == 0 {
            io.writeError("\(name): \(error)\n")
            return .unavailable
        }
        var printer = TranscriptPrinter()
        screen.frame()
        for line in printer.lines(for: screen.displayRows) { io.writeOutput(line + "\n") }
        guard request.follow else { return .success }
        io.writeError("\(name): following \(chat); Ctrl+C stops\n")
        let feed = WorkspaceSessionParts.follow(host, screen: screen, cache: cache, connection: connection)
        let stop = StopFlag()
        let waiter = Task { @MainActor in
            await io.waitForTermination()
            stop.isSet = true
        }
        var connection = feed.connection
        // The frame clock of a terminal log: ten frames a second.
        while !stop.isSet {
            do { try await ContinuousClock().sleep(for: .milliseconds(100)) } catch { break }
            screen.frame()
            for line in printer.lines(for: screen.displayRows) { io.writeOutput(line + "\n") }
            if feed.connection != connection {
                connection = feed.connection
                if case .reconnecting = connection {
                    io.writeError("\(name): events stream dropped; \(connection)\n")
                }
            }
        }
        waiter.cancel()
        await feed.stop()
        return .success
    }

    @MainActor
    private static func openThread(
        _ threadId: String, of chat: WorkspaceChatKey, desktop: WorkspaceDesktopClient, io: CommandIO
    ) async -> ExitCode {
        let viewer = SubagentThreadViewModel(chat: chat, threadId: threadId, rpc: desktop)
        await viewer.load()
        if let error = viewer.lastLoadError {
            io.writeError("\(name): \(error)\n")
            return .invalidData
        }
        var printer = TranscriptPrinter()
        let rows = DisplayRows(timeline: viewer.timeline.rows, activeRunId: nil)
        for line in printer.lines(for: rows) { io.writeOutput(line + "\n") }
        return .success
    }
}

/// Set once when the process is asked to stop.
@MainActor
final class StopFlag {
    var isSet = false
}
