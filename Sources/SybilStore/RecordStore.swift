import SybilCore
import SybilWire

/// The device's records (seed 004): written here first, so logging a mood or a session works
/// with no network, and uploaded later by a batch sync that marks each record synced only
/// after the server confirmed it.
///
/// One SQLite file (WAL, a busy timeout, so two `sybil` processes may write at once) with
/// named additive migrations; `synchronous=FULL`, so a save has reached the disk when it
/// returns. The connection is confined to this actor, whose executor is a dispatch queue of
/// its own: SQLite never blocks the cooperative pool. Rows are read strictly: a row that is
/// not a valid record is an error naming the row, never skipped or guessed.
public actor RecordStore {
    private let executor: SerialQueueExecutor
    private let database: SQLiteDatabase
    private let name: String

    /// The actor runs on its own queue.
    public nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    /// The schema, oldest change first. Only ever append: columns and tables are added, never
    /// changed or dropped, so an older build's file opens in a newer one.
    public static let migrations: [SQLiteMigration] = [
        .init(
            name: "records-1",
            sql: """
                CREATE TABLE records (
                    sequence INTEGER PRIMARY KEY AUTOINCREMENT,
                    id TEXT NOT NULL UNIQUE,
                    kind TEXT NOT NULL,
                    created_at INTEGER NOT NULL,
                    body TEXT NOT NULL,
                    synced INTEGER NOT NULL DEFAULT 0 CHECK (synced IN (0, 1)),
                    synced_at INTEGER
                );
                CREATE INDEX records_unsynced ON records (synced, sequence);
                CREATE INDEX records_created ON records (created_at, sequence);
                """),
        .init(
            name: "records-2-rejections",
            sql: """
                ALTER TABLE records ADD COLUMN rejection_code TEXT;
                ALTER TABLE records ADD COLUMN rejection_message TEXT;
                ALTER TABLE records ADD COLUMN rejection_param TEXT;
                """),
    ]

    private init(executor: SerialQueueExecutor, database: SQLiteDatabase, name: String) {
        self.executor = executor
        self.database = database
        self.name = name
    }

    /// Opens (creating when missing) the store at `path`, applying the migrations not yet
    /// applied. The work runs on the store's queue.
    public static func open(path: String) async throws -> RecordStore {
        try await open(name: path) { try SQLiteDatabase.open(path: path, migrations: migrations) }
    }

    /// A store in memory, gone when it is released (tests, and `--in-memory` runs).
    public static func inMemory() async throws -> RecordStore {
        try await open(name: ":memory:") {
            let database = try SQLiteDatabase(.inMemory)
            try database.migrate(migrations)
            return database
        }
    }

    private static func open(name: String, _ make: @escaping @Sendable () throws -> SQLiteDatabase) async throws
        -> RecordStore
    {
        let executor = SerialQueueExecutor(label: "sybil.records")
        let handOver = try await executor.run {
            let database = try make()
            try database.execute("PRAGMA synchronous = FULL")
            return HandOver(database: database)
        }
        return RecordStore(executor: executor, database: handOver.database, name: name)
    }

    /// Carries the connection from the queue that opened it to the actor that owns it.
    private struct HandOver: @unchecked Sendable {
        // Safe: made on the executor's queue and handed to the actor that runs on the same
        // queue; the opener keeps no reference, so the connection is only ever used there.
        let database: SQLiteDatabase
    }

    // MARK: Writing

    /// Saves a new record, unsynced. When this returns it is on disk. Saving an id twice is
    /// an error (ids are fresh UUIDs).
    public func save(_ record: Record) throws {
        try database.query(
            "INSERT INTO records (id, kind, created_at, body) VALUES (?, ?, ?, ?)",
            [.text(record.id), .text(record.kind.rawValue), .integer(record.createdAt), .text(record.canonicalJSON)])
    }

    /// Applies a batch's results in one transaction: a record the server stored (created or
    /// duplicate) is marked synced at `time` and its old rejection cleared; a rejected one
    /// stays unsynced with the reason kept. Results for ids not stored here, or already
    /// synced, change nothing. Returns how many records were newly marked synced.
    @discardableResult
    public func apply(_ results: [RecordResult], at time: Int64) throws -> Int {
        try database.transaction {
            var marked = 0
            for result in results {
                guard let id = result.id else { continue }
                if result.status.isStored {
                    try database.query(
                        """
                        UPDATE records SET synced = 1, synced_at = ?, rejection_code = NULL,
                            rejection_message = NULL, rejection_param = NULL
                        WHERE id = ? AND synced = 0
                        """,
                        [.integer(time), .text(id)])
                    marked += database.changes
                } else if let error = result.error {
                    try database.query(
                        """
                        UPDATE records SET rejection_code = ?, rejection_message = ?, rejection_param = ?
                        WHERE id = ? AND synced = 0
                        """,
                        [.text(error.code), .text(error.message), .optionalText(error.param), .text(id)])
                }
            }
            return marked
        }
    }

    // MARK: Reading

    /// The newest records first (by `createdAt`, then save order), at most `limit`; only the
    /// unsynced ones with `unsyncedOnly`.
    public func records(limit: Int, unsyncedOnly: Bool = false) throws -> [StoredRecord] {
        precondition(limit > 0, "limit must be positive")
        let filter = unsyncedOnly ? "WHERE synced = 0" : ""
        return try database.query(
            "SELECT \(Self.columns) FROM records \(filter) ORDER BY created_at DESC, sequence DESC LIMIT ?",
            [.integer(Int64(limit))]
        ).map(row)
    }

    /// Unsynced records saved after `sequence`, in save order, at most `limit`: what a sync
    /// uploads next.
    public func unsynced(after sequence: Int64, limit: Int) throws -> [StoredRecord] {
        precondition(limit > 0, "limit must be positive")
        return try database.query(
            "SELECT \(Self.columns) FROM records WHERE synced = 0 AND sequence > ? ORDER BY sequence LIMIT ?",
            [.integer(sequence), .integer(Int64(limit))]
        ).map(row)
    }

    /// The record with `id`, if saved.
    public func record(id: String) throws -> StoredRecord? {
        try database.query("SELECT \(Self.columns) FROM records WHERE id = ?", [.text(id)]).first.map(row)
    }

    /// How many records are not synced yet.
    public func unsyncedCount() throws -> Int {
        try count("SELECT COUNT(*) FROM records WHERE synced = 0")
    }

    /// How many records are saved.
    public func count() throws -> Int {
        try count("SELECT COUNT(*) FROM records")
    }

    /// The profile in force: of all `user` records, the one that is newest by
    /// ``Record/isNewerProfile(than:)``.
    public func profile() throws -> Record? {
        let rows = try database.query(
            "SELECT \(Self.columns) FROM records WHERE kind = 'user' ORDER BY created_at DESC, id DESC LIMIT 1")
        return try rows.first.map(row)?.record
    }

    // MARK: Rows

    private static let columns =
        "sequence, id, kind, created_at, body, synced, synced_at, rejection_code, rejection_message, rejection_param"

    private func count(_ sql: String) throws -> Int {
        guard let value = try database.query(sql).first?.first?.integerValue else {
            throw StorageError(operation: "count records", path: name, reason: "COUNT(*) returned no integer")
        }
        return Int(value)
    }

    /// Decodes a row strictly: every column of the right type, the body a valid record that
    /// agrees with the id, kind and time columns, and the sync columns consistent.
    private func row(_ values: [SQLiteValue]) throws -> StoredRecord {
        guard values.count == 10, let sequence = values[0].integerValue else {
            throw corrupt("a row", "sequence is not an integer")
        }
        let label = "row \(sequence)"
        guard let id = values[1].textValue, let kind = values[2].textValue, let createdAt = values[3].integerValue,
            let body = values[4].textValue, let synced = values[5].integerValue
        else { throw corrupt(label, "id, kind, created_at, body or synced has the wrong type") }
        let record: Record
        do {
            record = try Record.decode(try JSONReader().parse(body), at: .root)
        } catch {
            throw corrupt(label, "body is not a valid record (at \(error.path))")
        }
        guard record.id == id, record.kind.rawValue == kind, record.createdAt == createdAt else {
            throw corrupt(label, "body disagrees with the id, kind or created_at column")
        }
        let syncedAt: Int64?
        switch (synced, values[6]) {
        case (0, .null): syncedAt = nil
        case (1, .integer(let time)): syncedAt = time
        default: throw corrupt(label, "synced and synced_at disagree")
        }
        var rejection: RecordResult.Rejection?
        switch (values[7], values[8], values[9]) {
        case (.null, .null, .null): rejection = nil
        case (.text(let code), .text(let message), let param) where param == .null || param.textValue != nil:
            rejection = RecordResult.Rejection(code: code, message: message, param: param.textValue)
        default: throw corrupt(label, "the rejection columns have the wrong types")
        }
        return StoredRecord(sequence: sequence, record: record, syncedAt: syncedAt, rejection: rejection)
    }

    private func corrupt(_ row: String, _ reason: String) -> StorageError {
        StorageError(operation: "read records", path: name, reason: "\(row): \(reason)")
    }
}
