import SybilCore
import SybilStore
import SybilWire

/// The server's copy of every client's records (docs/api/records.md): one row per record id,
/// in the order stored, under the server's storage (`records.sqlite`).
///
/// A batch is stored in one transaction with `synchronous=FULL`, so an answered batch has
/// reached the disk and survives a crash. The id is the idempotency key: the same id with the
/// same content (its canonical JSON) is a duplicate and changes nothing; the same id with
/// other content is rejected as a conflict. The connection is confined to this actor, which
/// runs on a dispatch queue of its own.
actor ServerRecordStore {
    private let executor: SerialQueueExecutor
    private let database: SQLiteDatabase

    nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    static let migrations: [SQLiteMigration] = [
        .init(
            name: "server-records-1",
            sql: """
                CREATE TABLE records (
                    sequence INTEGER PRIMARY KEY AUTOINCREMENT,
                    id TEXT NOT NULL UNIQUE,
                    kind TEXT NOT NULL,
                    created_at INTEGER NOT NULL,
                    body TEXT NOT NULL,
                    received_at INTEGER NOT NULL
                );
                """)
    ]

    /// The database's file name under a storage directory.
    static let file = "records.sqlite"

    init(_ storage: SybilServerOptions.Storage) throws {
        executor = SerialQueueExecutor(label: "sybil.server.records")
        database = try ServerDatabase.open(storage, file: Self.file, migrations: Self.migrations)
        try database.execute("PRAGMA synchronous = FULL")
    }

    /// Stores a batch in one transaction and returns one result per entry, in order.
    /// Malformed entries are rejected with their path; the others are created, duplicates or
    /// conflicts (also within the batch itself).
    func store(_ batch: RecordBatch, at time: Int64) throws -> [RecordResult] {
        try database.transaction {
            var results: [RecordResult] = []
            results.reserveCapacity(batch.entries.count)
            for entry in batch.entries {
                switch entry {
                case .malformed(let id, let error):
                    results.append(
                        RecordResult(
                            id: id, status: .rejected,
                            error: .init(
                                code: RecordResult.Rejection.invalidRecord, message: "\(error.path): \(error.message).",
                                param: error.path.description)))
                case .record(let record):
                    results.append(try store(record, at: time, position: results.count))
                }
            }
            return results
        }
    }

    private func store(_ record: Record, at time: Int64, position: Int) throws -> RecordResult {
        let body = record.canonicalJSON
        if let existing = try database.rows("SELECT body FROM records WHERE id = ?", [.text(record.id)]).first {
            guard try existing.text("body") == body else {
                return RecordResult(
                    id: record.id, status: .rejected,
                    error: .init(
                        code: RecordResult.Rejection.recordConflict,
                        message:
                            "Record \(record.id) is already stored with other content; a record never changes, so save a new one with a new id.",
                        param: "records[\(position)].id"))
            }
            return RecordResult(id: record.id, status: .duplicate)
        }
        try database.query(
            "INSERT INTO records (id, kind, created_at, body, received_at) VALUES (?, ?, ?, ?, ?)",
            [.text(record.id), .text(record.kind.rawValue), .integer(record.createdAt), .text(body), .integer(time)])
        return RecordResult(id: record.id, status: .created)
    }

    /// Records stored after `after` (a sequence), oldest first, at most `limit`, and whether
    /// more follow.
    func page(after: Int64, limit: Int) throws -> RecordPage {
        let rows = try database.rows(
            "SELECT sequence, body FROM records WHERE sequence > ? ORDER BY sequence LIMIT ?",
            [.integer(after), .integer(Int64(limit) + 1)])
        var records: [Record] = []
        var last = after
        for row in rows.prefix(limit) {
            let sequence = try row.integer("sequence")
            let body = try row.text("body")
            do {
                records.append(try Record.decode(try JSONReader().parse(body), at: .root))
            } catch {
                throw APIError(status: 500, message: "Stored record \(sequence) is not a valid record (\(error.path)).")
            }
            last = sequence
        }
        return RecordPage(
            records: records, nextCursor: records.isEmpty && after == 0 ? nil : RecordCursor(sequence: last),
            hasMore: rows.count > limit)
    }

    /// How many records are stored (tests and benchmarks).
    func count() throws -> Int {
        Int(try database.row("SELECT COUNT(*) AS count FROM records").integer("count"))
    }
}
