import SybilClient
import SybilStore

/// `sybil records list [--unsynced] [--limit N] [--json]`: the records on this device, newest
/// first, one line each or one JSON array.
enum RecordsListCommand {
    static let name = "sybil records list"

    /// The options.
    struct Request: Equatable {
        var unsyncedOnly = false
        var limit = 50
        var json = false
    }

    static func run(_ arguments: [String], io: CommandIO) async throws(UsageError) -> ExitCode {
        guard let request = try parse(arguments) else {
            io.writeOutput(spec.help)
            return .success
        }
        return await list(request, io: io)
    }

    /// The options, or `nil` when help was asked for.
    static func parse(_ arguments: [String]) throws(UsageError) -> Request? {
        guard let options = try spec.parse(arguments)?.options else { return nil }
        var request = Request()
        request.unsyncedOnly = options.unsynced
        request.limit = options.limit
        request.json = options.json
        return request
    }

    @MainActor
    private static func list(_ request: Request, io: CommandIO) async -> ExitCode {
        guard let (model, store) = await RecordsCommand.model(command: name, io: io) else { return .cannotCreate }
        let shown: [StoredRecord]
        do {
            shown = try await store.records(limit: request.limit, unsyncedOnly: request.unsyncedOnly)
        } catch {
            io.writeError("\(name): \(error)\n")
            return .noInput
        }
        await model.reload()
        if let error = model.lastError {
            io.writeError("\(name): \(error)\n")
            return .noInput
        }
        if request.json { io.writeOutput(HistoryJSON.document(.array(shown.map(HistoryJSON.record)))) }
        for stored in shown where !request.json {
            let time = WorkspacesListCommand.time(stored.record.createdAt)
            io.writeOutput(
                "\(time)  \(RecordsCommand.summary(stored.record))  \(RecordsCommand.state(stored))  \(stored.record.id)\n"
            )
        }
        io.writeError("\(name): \(shown.count) shown, \(model.unsyncedCount) unsynced\n")
        return .success
    }
}
