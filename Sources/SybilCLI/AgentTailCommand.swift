import Foundation
import SybilClient
import SybilCore
import SybilTimeline
import SybilWire

/// `sybil agent tail [--count N] [--no-follow]`: the room's visible transcript (tool traffic
/// hidden, day separators), then live replies, activity and unread until SIGINT/SIGTERM. The
/// terminal shows the bottom with no entrance animation, so the shared read is acknowledged
/// once the transcript is printed.
enum AgentTailCommand {
    static let name = "sybil agent tail"

    struct Request {
        var common: ClientCommand.Common
        var count = 20
        var follow = true
    }

    static func run(_ arguments: [String], io: CommandIO) async throws(UsageError) -> ExitCode {
        try await ClientCommand.run(
            arguments, io: io, spec: spec, common: \.common, parse: parse
        ) { request, connection in
            await tail(request, connection: connection, io: io)
        }
    }

    static func parse(_ arguments: [String], environment: [String: String]) throws(UsageError) -> Request? {
        guard let (common, parsed) = try ClientCommand.parse(arguments, environment: environment, spec: spec)
        else { return nil }
        let count = parsed.options.count
        let follow = !parsed.options.noFollow
        return Request(common: common, count: count, follow: follow)
    }

    @MainActor
    private static func tail(_ request: Request, connection: ServerTarget.Connection, io: CommandIO) async -> ExitCode {
        let session: AgentCommand.Session
        switch await AgentCommand.open(request.common, connection: connection, command: name, io: io) {
        case .success(let opened): session = opened
        case .failure(let error): return error.code
        }
        let room = session.composer.room
        room.isSelected = true
        await session.composer.start()
        if room.descriptor == nil, let problem = room.roomError {
            io.writeError("\(name): \(problem)\n")
            await session.close()
            return .unavailable
        }
        // The room loads its newest page; older pages come as a reader scrolls up, so ask for
        // them until the transcript holds `count` visible messages or the room has no more.
        var visible = room.rows.count { $0.message != nil }
        while visible < request.count, room.hasMoreBefore || room.history.messages.count > visible {
            await room.loadOlder()
            let now = room.rows.count { $0.message != nil }
            guard now > visible else { break }
            visible = now
        }
        var printer = AgentTranscriptPrinter()
        let rows = room.rows
        let messages = rows.indices.filter { rows[$0].message != nil }
        let first = messages.count > request.count ? messages[messages.count - request.count] : 0
        printer.skip(rows[..<first])
        for line in printer.lines(for: rows) { io.writeOutput(line + "\n") }
        for entry in session.composer.pending { io.writeOutput(AgentTranscriptPrinter.line(for: entry) + "\n") }
        room.viewportReachedBottom()
        room.entranceAnimationFinished()
        guard request.follow else {
            // Let the shared read reach the server before the room stops.
            if let newest = rows.last(where: { $0.message != nil })?.message?.cursor {
                _ = await AgentCommand.wait(limit: .seconds(5)) {
                    room.readState?.readCursor.map { $0 >= newest } ?? false
                }
            }
            await session.close()
            return .success
        }
        io.writeError("\(name): following the room; Ctrl+C stops\n")
        let stop = StopFlag()
        let waiter = Task { @MainActor in
            await io.waitForTermination()
            stop.isSet = true
        }
        var activity = room.activity
        var unread = room.unreadCount
        var connectionState = room.connection
        while !stop.isSet {
            do { try await ContinuousClock().sleep(for: .milliseconds(100)) } catch { break }
            let lines = printer.lines(for: room.rows)
            for line in lines { io.writeOutput(line + "\n") }
            if !lines.isEmpty {
                // New rows are shown at the bottom at once: a terminal has no entrance animation.
                room.viewportReachedBottom()
                room.entranceAnimationFinished()
            }
            if room.activity != activity {
                activity = room.activity
                io.writeError("\(name): \(AgentTranscriptPrinter.describe(activity))\n")
            }
            if room.unreadCount != unread {
                unread = room.unreadCount
                io.writeError("\(name): \(unread) unread\n")
            }
            if room.connection != connectionState {
                connectionState = room.connection
                io.writeError("\(name): \(connectionState)\n")
            }
        }
        waiter.cancel()
        await session.close()
        return .success
    }
}
