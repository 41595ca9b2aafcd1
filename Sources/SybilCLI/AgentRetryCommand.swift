import Foundation
import SybilClient
import SybilCore

/// `sybil agent retry [REQUEST_ID]` and `sybil agent resend-all`: failed messages go again
/// with their original request ids and times (the server answers a repeat with the first
/// receipt, so nothing is stored twice), then the command waits for the echoes.
enum AgentRetryCommand {
    static let retryName = "sybil agent retry"
    static let resendAllName = "sybil agent resend-all"

    struct Request {
        var common: ClientCommand.Common
        var requestId: String?
        var wait: Duration = .seconds(60)
    }

    static func run(_ arguments: [String], io: CommandIO, all: Bool) async throws(UsageError) -> ExitCode {
        let spec = all ? resendAllSpec : retrySpec
        let command = spec.name
        let parse = { (arguments: [String], environment: [String: String]) throws(UsageError) -> Request? in
            try Self.parse(arguments, environment: environment, all: all)
        }
        return try await ClientCommand.run(
            arguments, io: io, spec: spec, common: \.common, parse: parse
        ) { request, connection in
            await retry(request, all: all, command: command, connection: connection, io: io)
        }
    }

    static func parse(_ arguments: [String], environment: [String: String], all: Bool) throws(UsageError)
        -> Request?
    {
        let spec = all ? resendAllSpec : retrySpec
        guard let (common, parsed) = try ClientCommand.parse(arguments, environment: environment, spec: spec) else {
            return nil
        }
        let wait = Duration.seconds(parsed.options.wait)
        return Request(common: common, requestId: parsed.positionals.first, wait: wait)
    }

    @MainActor
    private static func retry(
        _ request: Request, all: Bool, command: String, connection: ServerTarget.Connection, io: CommandIO
    ) async -> ExitCode {
        await AgentCommand.withSession(request.common, connection: connection, command: command, io: io) {
            session in await retry(request, all: all, command: command, session: session, io: io)
        }
    }

    @MainActor
    private static func retry(
        _ request: Request, all: Bool, command: String, session: AgentCommand.Session, io: CommandIO
    ) async -> ExitCode {
        let composer = session.composer
        let failed = composer.outbox.entries.filter { $0.state == .failed }
        let chosen: [AgentOutboxEntry]
        if all {
            chosen = failed.filter(\.canRetry)
            if chosen.isEmpty {
                io.writeError("\(command): no failed message can be sent again\n")
                for entry in failed {
                    let said = entry.failure.map {
                        AgentRefusalAdvice.describe($0, discard: AgentDiscardCommand.advice(entry.requestId))
                    }
                    io.writeError("\(command): “\(entry.label)”: \(said ?? "")\n")
                }
                return failed.isEmpty ? .success : .invalidData
            }
        } else {
            guard let entry = request.requestId.map({ id in failed.first { $0.requestId == id } }) ?? failed.first
            else {
                io.writeError(
                    "\(command): \(request.requestId.map { "no failed message \($0)" } ?? "no failed message") in the outbox\n"
                )
                return .invalidData
            }
            guard entry.canRetry else {
                io.writeError(
                    "\(command): “\(entry.label)” was refused for good and cannot be sent again: \(entry.failure.map { AgentRefusalAdvice.describe($0, discard: AgentDiscardCommand.advice(entry.requestId)) } ?? "")\n"
                )
                return .invalidData
            }
            chosen = [entry]
        }
        do {
            if all {
                _ = try await composer.resendAll()
            } else {
                try await composer.retry(chosen[0].requestId)
            }
        } catch {
            io.writeError("\(command): \(error)\n")
            return .noInput
        }
        for entry in chosen { io.writeError("\(command): sending “\(entry.label)” again as \(entry.requestId)\n") }
        // What this run waits for, taken before the sender starts (a fast echo retires an entry).
        let chosenIds = Set(chosen.map(\.requestId))
        let waiting = composer.outbox.entries.filter { $0.state != .failed || chosenIds.contains($0.requestId) }
        await composer.start()
        return await AgentCommand.awaitEchoes(
            of: waiting.map(\.requestId), in: session, limit: request.wait, command: command, io: io)
    }
}
