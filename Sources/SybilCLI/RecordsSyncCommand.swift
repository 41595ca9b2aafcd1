import SybilClient
import SybilHTTP

/// `sybil records sync`: uploads every unsynced record to the server and marks what it
/// confirmed. Without `--api-url` the embedded server answers, keeping its data in
/// `$XDG_DATA_HOME/sybil/embedded`, so synced records persist there.
enum RecordsSyncCommand {
    static let name = "sybil records sync"

    static func run(_ arguments: [String], io: CommandIO) async throws(UsageError) -> ExitCode {
        try await run(arguments, io: io, clock: AnyClock(ContinuousClock()))
    }

    /// The command with the clock its calls' deadlines are measured on injected (tests pass a
    /// manual one).
    static func run(_ arguments: [String], io: CommandIO, clock: AnyClock) async throws(UsageError) -> ExitCode {
        try await SurfaceGate.run(.records, spec: spec, arguments: arguments, io: io) {
            () async throws(UsageError) -> ExitCode in
            try await ClientCommand.run(
                arguments, io: io, spec: spec, common: \.common, parse: parse
            ) { _, connection in
                await sync(connection, io: io, clock: clock)
            }
        }
    }

    /// The common options, or `nil` when help was asked for; no arguments are taken.
    static func parse(_ arguments: [String], environment: [String: String]) throws(UsageError)
        -> (common: ClientCommand.Common, parsed: ParsedArguments<ClientCommand.Options>)?
    {
        try ClientCommand.parse(arguments, environment: environment, spec: spec)
    }

    @MainActor
    private static func sync(_ connection: ServerTarget.Connection, io: CommandIO, clock: AnyClock) async -> ExitCode {
        guard connection.apiBase(command: name, io: io) != nil else { return .usage }
        guard let sync = RecordsCommand.sync(with: connection, clock: clock) else {
            io.writeError("\(name): the embedded server keeps nothing here; nothing was sent\n")
            return .usage
        }
        guard let (model, store) = await RecordsCommand.model(command: name, io: io, sync: sync) else {
            return .cannotCreate
        }
        switch await model.syncNow() {
        case .success(let report)?:
            io.writeOutput(
                "synced \(report.marked) of \(RecordsCommand.records(report.uploaded)) (\(report.created) new, \(report.duplicates) already on the server), \(report.rejected) rejected; \(model.unsyncedCount) unsynced\n"
            )
            guard report.rejected > 0 else { return .success }
            for stored in (try? await store.records(limit: 10_000, unsyncedOnly: true)) ?? [] {
                guard let rejection = stored.rejection else { continue }
                io.writeError("\(name): \(stored.record.id) rejected \(RecordsCommand.reason(rejection))\n")
            }
            return .invalidData
        case .failure(let error)?:
            let unsynced = model.unsyncedCount
            let left = "\(RecordsCommand.records(unsynced)) \(unsynced == 1 ? "stays" : "stay") unsynced"
            // The error may quote the server (its error body's message): one line, bounded.
            io.writeError("\(name): \(sentence(for: error, connection)); \(left)\n")
            switch error {
            case _ where error.refusedKey: return .permissionDenied
            case .transport, .rejected, .timedOut: return .unavailable
            case .malformedAnswer, .redirectRefused: return .protocolError
            case .storage, .interrupted: return .cannotCreate
            }
        case nil:
            return .success
        }
    }

    /// What went wrong, on one line of at most 1,000 characters: a call that outran its
    /// deadline names the server and how to wait longer; a refused key says which profile's
    /// it was, as `sybil ask` does.
    private static func sentence(for error: RecordSyncError, _ connection: ServerTarget.Connection) -> String {
        if case .timedOut(let call, let after) = error {
            let seconds = after.components.seconds
            return RecordsCommand.peerText(
                "\(connection.serverName) did not finish answering \(call) within \(seconds) s, the deadline for one"
                    + " call (a profile's timeout sets another)", limit: 1_000)
        }
        let profile = error.refusedKey ? connection.profile.map { " (profile \($0.name))" } ?? "" : ""
        return RecordsCommand.peerText(error.description, limit: 1_000) + profile
    }
}
