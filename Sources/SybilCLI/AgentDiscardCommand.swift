import Foundation
import SybilClient
import SybilCore

/// `sybil agent discard [REQUEST_ID]`: the way out of a final refusal. The failed message
/// leaves the outbox (its text is printed on standard output, to write it again), and the
/// messages it held go on; the command then waits for their echoes. Without REQUEST_ID the
/// one message refused for good is discarded; when there are several it names them.
enum AgentDiscardCommand {
    static let name = "sybil agent discard"

    struct Request {
        var common: ClientCommand.Common
        var requestId: String?
        var wait: Duration = .seconds(60)
    }

    static func run(_ arguments: [String], io: CommandIO) async throws(UsageError) -> ExitCode {
        try await ClientCommand.run(
            arguments, io: io, spec: spec, common: \.common, parse: parse
        ) { request, connection in
            await discard(request, connection: connection, io: io)
        }
    }

    static func parse(_ arguments: [String], environment: [String: String]) throws(UsageError) -> Request? {
        guard let (common, parsed) = try ClientCommand.parse(arguments, environment: environment, spec: spec)
        else { return nil }
        guard parsed.positionals.count <= 1 else {
            throw UsageError(command: name, message: "takes at most one REQUEST_ID")
        }
        let wait = Duration.seconds(parsed.options.wait)
        return Request(common: common, requestId: parsed.positionals.first, wait: wait)
    }

    /// The sentence a final refusal ends with on the command line, naming this command.
    static func advice(_ requestId: String) -> String { "run `\(name) \(requestId)`" }

    @MainActor
    private static func discard(_ request: Request, connection: ServerTarget.Connection, io: CommandIO) async
        -> ExitCode
    {
        await AgentCommand.withSession(request.common, connection: connection, command: name, io: io) {
            session in await discard(request, session: session, io: io)
        }
    }

    @MainActor
    private static func discard(_ request: Request, session: AgentCommand.Session, io: CommandIO) async -> ExitCode {
        let composer = session.composer
        let failed = composer.outbox.entries.filter { $0.state == .failed }
        let chosen: AgentOutboxEntry
        if let id = request.requestId {
            guard let entry = failed.first(where: { $0.requestId == id }) else {
                io.writeError("\(name): no failed message \(TerminalText.oneLine(id)) in the outbox\n")
                return .invalidData
            }
            chosen = entry
        } else {
            let refused = failed.filter { $0.failure?.kind == .refused }
            guard let only = refused.first, refused.count == 1 else {
                if refused.isEmpty {
                    io.writeError("\(name): no message was refused for good; name a failed one with REQUEST_ID\n")
                } else {
                    io.writeError(
                        "\(name): \(refused.count) messages were refused for good; name one with REQUEST_ID:\n")
                    for entry in refused {
                        io.writeError("  \(entry.requestId)  “\(TerminalText.oneLine(entry.label))”\n")
                    }
                }
                return .invalidData
            }
            chosen = only
        }
        let discarded: AgentOutboxEntry
        do {
            discarded = try await composer.discard(chosen.requestId)
        } catch {
            io.writeError("\(name): \(error)\n")
            return .noInput
        }
        io.writeError("\(name): discarded “\(TerminalText.oneLine(discarded.label))” (\(discarded.requestId))\n")
        if !discarded.text.isEmpty { io.writeOutput(TerminalText.safe(discarded.text) + "\n") }
        // The messages it held go on now.
        let waiting = composer.outbox.entries.filter { $0.state != .failed && $0.state != .confirmed }
        guard !waiting.isEmpty else { return .success }
        io.writeError("\(name): sending the \(waiting.count) message(s) it held\n")
        await composer.start()
        return await AgentCommand.awaitEchoes(
            of: waiting.map(\.requestId), in: session, limit: request.wait, command: name, io: io)
    }
}
