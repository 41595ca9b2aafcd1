import Foundation
import SybilClient
import SybilCore
import SybilServer
import SybilStore
import SybilWire

/// `sybil records add|list|sync`: local-first records (seed 004) from the command line,
/// through the same store, sync and view model the apps use. Records live in
/// `$XDG_DATA_HOME/sybil/client/records.sqlite`; `add` and `list` never touch the network.
enum RecordsCommand {
    static let name = "sybil records"

    /// The subcommands, one line each.
    static let table = CommandTable(
        group: spec,
        entries: [
            .init("add", RecordsAddCommand.run), .init("list", RecordsListCommand.run),
            .init("sync", RecordsSyncCommand.run),
        ])

    static func run(_ arguments: [String], io: CommandIO) async throws(UsageError) -> ExitCode {
        try await table.run(arguments, io: io)
    }

    /// Where the device's records live.
    static func storePath(_ environment: [String: String]) -> String {
        XDGDirectories(environment: environment).sybilData + "/client/records.sqlite"
    }

    /// Opens the records model over the local store (with `sync` when given a server), or
    /// reports why the store cannot be opened and returns `nil`.
    @MainActor
    static func model(
        command: String, io: CommandIO, sync: ((RecordStore) -> RecordSync)? = nil
    ) async -> (model: RecordsModel, store: RecordStore)? {
        let path = storePath(io.environment)
        let store: RecordStore
        do {
            store = try await RecordStore.open(path: path)
        } catch {
            io.writeError("\(command): cannot open the records at \(path): \(error)\n")
            return nil
        }
        // The live defaults: a command is where real time and randomness enter the engine.
        let model = RecordsModel(
            store: store, sync: sync?(store), ids: RandomUUIDGenerator(source: SystemRandomSource()), now: now)
        return (model, store)
    }

    /// The sync of the device's records with `connection`'s server, or `nil` when that server
    /// keeps nothing (the embedded one with `--in-memory`): what it confirmed would be gone when
    /// the command ends, yet marked synced, and a synced record is never sent again. Each call
    /// to the server ends within ``deadline(for:)``, measured on `clock` (the live one unless a
    /// test gives another).
    static func sync(
        with connection: ServerTarget.Connection, clock: AnyClock = AnyClock(ContinuousClock())
    ) -> ((RecordStore) -> RecordSync)? {
        guard connection.embedded?.options.storage != .inMemory, let base = try? AgentAPIBase(connection.baseURL)
        else { return nil }
        let api = RecordsHTTPClient(
            base: base, http: connection.http(redirects: .deliver), tokens: connection.tokens,
            deadline: deadline(for: connection), clock: clock)
        return { RecordSync(store: $0, api: api, now: now) }
    }

    /// How long one call to the server may take in all: the profile's `timeout` when it sets
    /// one (as `sybil ask` waits that long), else ``RecordsHTTPClient/defaultDeadline``.
    static func deadline(for connection: ServerTarget.Connection) -> Duration {
        connection.profile?.timeoutSeconds.map { .seconds($0) } ?? RecordsHTTPClient.defaultDeadline
    }

    /// `1 record`, `2 records`, `0 records`.
    static func records(_ count: Int) -> String {
        count == 1 ? "1 record" : "\(count) records"
    }

    /// The line after a record was saved: how many wait for `sybil records sync`.
    static func unsyncedNote(command: String, count: Int) -> String {
        "\(command): \(count) unsynced; `sybil records sync` uploads \(count == 1 ? "it" : "them")\n"
    }

    /// Milliseconds since 1970 from the wall clock.
    static let now = WallClock.milliseconds

    /// `mood 4 "slept well"`, `breathing 120 s, 12 cycles` (`1 cycle`), `meditation 600 s`, `profile "Ana"`.
    static func summary(_ record: Record) -> String {
        switch record.payload {
        case .user(let name): "profile \(JSONWriter.quoted(name))"
        case .mood(let score, let note): "mood \(score)" + (note.map { " \(JSONWriter.quoted($0))" } ?? "")
        case .breathing(let seconds, let cycles): "breathing \(seconds) s, \(cycles) cycle\(cycles == 1 ? "" : "s")"
        case .meditation(let seconds): "meditation \(seconds) s"
        }
    }

    /// `synced`, `unsynced`, or `rejected: <reason>` (a rejected record is still unsynced).
    static func state(_ stored: StoredRecord) -> String {
        if stored.isSynced { return "synced" }
        if let rejection = stored.rejection { return "unsynced, rejected \(reason(rejection))" }
        return "unsynced"
    }

    /// The most characters of a server's text (a rejection's code or message, an error's
    /// message) shown on a line.
    static let maximumShownCharacters = 300

    /// `(code): message`: the server's words, shown and never obeyed. A server chooses them,
    /// so they are made one line (a line feed in them would print a line that looks like
    /// another record's) without control characters, and cut at ``maximumShownCharacters``.
    static func reason(_ rejection: RecordResult.Rejection) -> String {
        "(\(peerText(rejection.code))): \(peerText(rejection.message))"
    }

    /// Text a server chose, on one line, without control characters, at most `limit`
    /// characters long (the last one `…` when it was cut).
    static func peerText(_ text: String, limit: Int = maximumShownCharacters) -> String {
        let line = TerminalText.oneLine(text)
        guard line.count > limit else { return line }
        return String(line.prefix(limit - 1)) + "…"
    }
}
