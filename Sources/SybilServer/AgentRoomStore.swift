import Foundation
import SybilCore
import SybilHTTP
import SybilStore
import SybilWire

/// The Agent room's storage: messages in server order, idempotent submissions by request id,
/// the turns the agent owes, the shared read position, and uploaded originals. One SQLite
/// connection, used by this actor on its queue and, for the read state only, on the calling
/// thread while the actor is not using it (``readStateIfIdle()``, see ``LockedDatabase``).
///
/// A submission stores the user's message and its pending turn in one transaction; each step
/// of the turn is stored with the turn's progress in one transaction too, so a crash at any
/// point leaves either the whole step or none of it, and the next start finishes the turn.
///
/// Uploaded originals on disk are files in ``uploadsFolder`` named by their id's SHA-256: an
/// upload's bytes arrive in a temporary file there (``spool(param:)``), which is flushed to
/// disk and renamed into place before the upload's row is committed. A crash mid-upload leaves
/// at most a temporary file, or a renamed one without a row, and the next start removes both;
/// an upload once answered has its file and its row on disk. With in-memory storage the bytes
/// are in the database, within the ``UploadMemoryBudget``.
actor AgentRoomStore {
    /// SQLite work (and its fsync) runs on this queue, off the cooperative thread pool.
    private let executor = SerialQueueExecutor(label: "sybil.server.agent-room")
    nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    /// A stored message: its sequence orders it and makes its id and cursor.
    struct Row: Sendable, Hashable {
        var sequence: Int64
        var message: AgentRoomMessage
    }

    /// The receipt of a submission, and whether it created the message.
    struct Submission: Sendable {
        var row: Row
        var created: Bool
    }

    /// A turn the agent still owes: the user's message, and whether its tool step is stored.
    struct PendingTurn: Sendable, Hashable {
        var user: Row
        var toolStored: Bool
    }

    /// A step whose storage a test can make fail (``init(_:failing:budget:)``).
    enum Step: Sendable, Hashable {
        /// A look for the next pending turn, alone or after a stored reply.
        case lookup
        /// Storing a turn's tool step.
        case toolStep
        /// Storing a turn's reply.
        case reply
        /// Storing an upload's file: after this step of moving it into place, before its row.
        case uploadFile(SpoolFile.Step)
        /// Storing an in-memory upload's row, with its bytes.
        case uploadRow
    }

    private let connection: LockedDatabase
    /// Runs before each step of a turn and fails it by throwing (tests only).
    private let failing: (@Sendable (Step) throws -> Void)?
    /// Where uploads' files are (storage in a directory), or `nil` (in memory).
    nonisolated let uploadsFolder: String?
    /// What in-memory storage may hold of uploads.
    private let budget: UploadMemoryBudget

    static let migrations: [SQLiteMigration] = [
        .init(
            name: "agent-1",
            sql: """
                CREATE TABLE agent_messages (
                    sequence INTEGER PRIMARY KEY AUTOINCREMENT,
                    request_id TEXT UNIQUE,
                    fingerprint TEXT,
                    role TEXT NOT NULL,
                    visibility TEXT NOT NULL,
                    text TEXT NOT NULL,
                    created_at INTEGER NOT NULL,
                    attachments TEXT NOT NULL DEFAULT ''
                );
                CREATE TABLE agent_read (id INTEGER PRIMARY KEY CHECK (id = 1), sequence INTEGER NOT NULL);
                CREATE TABLE agent_uploads (
                    upload_id TEXT PRIMARY KEY,
                    file_name TEXT NOT NULL,
                    mime_type TEXT NOT NULL,
                    size INTEGER NOT NULL,
                    sha256 TEXT NOT NULL,
                    bytes BLOB NOT NULL,
                    created_at INTEGER NOT NULL
                );
                """),
        .init(
            name: "agent-2-turns",
            sql: """
                CREATE TABLE agent_turns (
                    user_sequence INTEGER PRIMARY KEY,
                    tool_sequence INTEGER,
                    reply_sequence INTEGER
                );
                """),
        // The turns still owed, in order: finding the next one reads the pending turns only,
        // not every turn the room ever answered (a scan that grew with the room, on every turn).
        .init(
            name: "agent-3-pending-turns",
            sql: """
                CREATE INDEX agent_turns_pending ON agent_turns (user_sequence) WHERE reply_sequence IS NULL;
                """),
        // An original on disk is a file in the uploads folder, named here (its `bytes` are
        // empty); without a name (rows before this, in-memory storage) the bytes are the row's.
        .init(
            name: "agent-4-upload-files",
            sql: """
                ALTER TABLE agent_uploads ADD COLUMN file TEXT;
                """),
    ]

    /// The database's file name under a storage directory.
    static let file = "agent-room.sqlite"
    /// The uploads folder's name under a storage directory.
    static let uploadsFolderName = "agent-uploads"
    /// The prefix of an upload's temporary file in the uploads folder.
    static let temporaryPrefix = "tmp-"

    init(_ storage: SybilServerOptions.Storage) throws {
        try self.init(storage, failing: nil)
    }

    /// The store, with `failing` run before each step of a turn (inside the store's turn of
    /// the connection) and after each step of moving an upload's file into place: what it
    /// throws is that step's error, as a busy or failing disk's (or a crash) would be. Tests
    /// make steps fail this way. In-memory storage holds uploads within `budget` (no limit
    /// without one). At start, temporary files and files without an upload's row (what a crash
    /// mid-upload leaves) are removed from the uploads folder.
    init(
        _ storage: SybilServerOptions.Storage, failing: (@Sendable (Step) throws -> Void)?,
        budget: UploadMemoryBudget = UploadMemoryBudget(capacity: .max)
    ) throws {
        let database = try ServerDatabase.open(storage, file: Self.file, migrations: Self.migrations)
        // Every commit reaches the disk, whatever the build of SQLite defaults to: an answered
        // upload's row (its file is flushed before it) and an answered message survive a crash.
        try database.execute("PRAGMA synchronous = FULL")
        connection = LockedDatabase(database)
        self.failing = failing
        self.budget = budget
        switch storage {
        case .inMemory:
            uploadsFolder = nil
        case .directory(let path):
            let folder = path + "/" + Self.uploadsFolderName
            uploadsFolder = folder
            let named = try database.rows("SELECT file FROM agent_uploads WHERE file IS NOT NULL").map {
                try $0.text("file")
            }
            try Self.removeLeftovers(in: folder, keeping: Set(named))
        }
    }

    /// Removes from `folder` the temporary files and the originals no row names.
    private static func removeLeftovers(in folder: String, keeping named: Set<String>) throws {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return }
        for name in names where name.hasPrefix(temporaryPrefix) || (isFileName(name) && !named.contains(name)) {
            try AtomicFile.remove(folder + "/" + name)
        }
    }

    /// Whether `name` is what ``fileName(for:)`` makes.
    private static func isFileName(_ name: String) -> Bool {
        name.utf8.count == 64 && name.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }

    /// The name of an upload's file: its id's SHA-256 (an id may be `..` or longer than a
    /// file name may be).
    static func fileName(for uploadId: String) -> String {
        SHA256Digest.hex(Array(uploadId.utf8))
    }

    /// A spool for an upload's bytes as they arrive: a temporary file in the uploads folder,
    /// or memory within the budget; a refusal of the budget names `param`.
    nonisolated func spool(param: String) -> UploadSpool {
        UploadSpool(uploadsFolder.map { .directory($0) } ?? .memory(budget), param: param)
    }

    // MARK: Messages

    /// Messages after or before a sequence (or the newest), oldest first, and whether older
    /// ones exist. Any sequence is fine, also one beyond the newest message.
    func messages(after: Int64?, before: Int64?, limit: Int) throws -> (rows: [Row], hasMoreBefore: Bool) {
        try connection.withDatabase { database in
            let found: [SQLiteRow]
            if let after {
                found = try database.rows(
                    "SELECT \(Self.columns) FROM agent_messages WHERE sequence > ? ORDER BY sequence ASC LIMIT ?",
                    [.integer(after), .integer(Int64(limit))])
            } else {
                found = Array(
                    try database.rows(
                        "SELECT \(Self.columns) FROM agent_messages WHERE sequence < ? ORDER BY sequence DESC LIMIT ?",
                        [.integer(before ?? Int64.max), .integer(Int64(limit))]
                    ).reversed())
            }
            let rows = try found.map { try Self.row(from: $0, in: database) }
            // Older than the first message shown; with none shown, older than or at `after`.
            let older: [[SQLiteValue]]
            if let first = rows.first {
                older = try database.query(
                    "SELECT 1 FROM agent_messages WHERE sequence < ? LIMIT 1", [.integer(first.sequence)])
            } else if let after {
                older = try database.query(
                    "SELECT 1 FROM agent_messages WHERE sequence <= ? LIMIT 1", [.integer(after)])
            } else {
                older = []
            }
            return (rows, !older.isEmpty)
        }
    }

    /// Stores a client submission once per request id, with the turn it starts, in one
    /// transaction. The same id with the same fingerprint returns the first message; with
    /// another fingerprint it is a 409. Every attachment must have been uploaded, and all of
    /// them together must fit `maxTotalBytes` (413). `admitNew` runs first for a request id not
    /// stored yet (a rate limit): when it throws, nothing is stored and its error is thrown.
    func submit(
        _ submission: AgentRoomSubmission, fingerprint: String, maxTotalBytes: Int64,
        admitNew: @Sendable () throws -> Void = {}
    ) throws -> Submission {
        try connection.withDatabase { database in
            try database.transaction {
                if let existing = try database.rows(
                    "SELECT \(Self.columns), fingerprint FROM agent_messages WHERE request_id = ?",
                    [.text(submission.requestId)]
                ).first {
                    guard try existing.optionalText("fingerprint") == fingerprint else {
                        throw APIError(
                            status: 409,
                            message: "Request \(submission.requestId) was already used for a different message.",
                            code: "request_conflict", param: "requestId")
                    }
                    return Submission(row: try Self.row(from: existing, in: database), created: false)
                }
                // A request id not seen before: the caller's rate limit decides (in the same
                // turn of the store as the lookup, so a retry of a stored message is never
                // counted and a new one is counted once).
                try admitNew()
                var attachments: [AgentAttachment] = []
                for (index, uploadId) in submission.attachments.enumerated() {
                    guard let upload = try Self.descriptor(uploadId, in: database) else {
                        throw APIError.invalid(
                            "Attachment \(uploadId) was never uploaded; upload it with POST agent/uploads first.",
                            param: "attachments[\(index)]", code: "unknown_upload")
                    }
                    attachments.append(upload)
                }
                let total = attachments.reduce(Int64(0)) { $0 + $1.size }
                if total > maxTotalBytes {
                    throw APIError(
                        status: 413,
                        message:
                            "The attachments add up to \(AgentRoomService.mebibytes(total)); a message may carry at most \(maxTotalBytes >> 20) MiB.",
                        code: "too_large", param: "attachments",
                        details: [
                            "limitBytes": .number(JSONNumber(maxTotalBytes)), "sizeBytes": .number(JSONNumber(total)),
                        ])
                }
                let row = try Self.insert(
                    role: .user, text: submission.text, createdAt: submission.createdAt,
                    requestId: submission.requestId, fingerprint: fingerprint, attachments: attachments,
                    in: database)
                try database.query("INSERT INTO agent_turns (user_sequence) VALUES (?)", [.integer(row.sequence)])
                return Submission(row: row, created: true)
            }
        }
    }

    /// Whether a message was already submitted with `requestId`.
    // MARK: Turns

    /// The oldest turn without a reply, if any.
    func nextPendingTurn() throws -> PendingTurn? {
        try connection.withDatabase { database in
            try failing?(.lookup)
            return try Self.nextPendingTurn(in: database)
        }
    }

    private static func nextPendingTurn(in database: SQLiteDatabase) throws -> PendingTurn? {
        guard
            let turn = try database.rows(
                """
                SELECT user_sequence, tool_sequence FROM agent_turns
                WHERE reply_sequence IS NULL ORDER BY user_sequence ASC LIMIT 1
                """
            ).first
        else { return nil }
        let sequence = try turn.integer("user_sequence")
        guard
            let user = try database.rows(
                "SELECT \(Self.columns) FROM agent_messages WHERE sequence = ?", [.integer(sequence)]
            ).first
        else {
            throw APIError(status: 500, message: "Turn \(sequence) has no user message.")
        }
        return PendingTurn(
            user: try Self.row(from: user, in: database), toolStored: try turn.optionalInteger("tool_sequence") != nil)
    }

    /// How many turns still wait for their reply.
    func pendingTurnCount() throws -> Int {
        try connection.withDatabase { database in
            Int(
                try database.row("SELECT COUNT(*) AS pending FROM agent_turns WHERE reply_sequence IS NULL")
                    .integer("pending"))
        }
    }

    /// Stores the turn's tool call (internal) and records it, in one transaction.
    func storeToolStep(of turn: PendingTurn, text: String, createdAt: Int64) throws -> Row {
        try connection.withDatabase { database in
            try failing?(.toolStep)
            return try database.transaction {
                let row = try Self.insert(
                    role: .tool, visibility: .internal, text: text, createdAt: createdAt, requestId: nil,
                    fingerprint: nil, attachments: [], in: database)
                try database.query(
                    "UPDATE agent_turns SET tool_sequence = ? WHERE user_sequence = ?",
                    [.integer(row.sequence), .integer(turn.user.sequence)])
                return row
            }
        }
    }

    /// Stores the turn's public reply and marks the turn done, in one transaction.
    func storeReply(of turn: PendingTurn, text: String, createdAt: Int64) throws -> Row {
        try connection.withDatabase { database in
            try failing?(.reply)
            return try Self.storeReply(of: turn, text: text, createdAt: createdAt, in: database)
        }
    }

    /// ``storeReply(of:text:createdAt:)``, then ``nextPendingTurn()`` in the same turn of the
    /// store's queue (the agent's next step, without a second switch to the queue and back).
    /// A failed reply throws; a failed look after a stored reply is `next`'s failure, apart from
    /// "no turn pending" (`.success(nil)`): the reply is stored either way.
    func storeReplyFindingNext(of turn: PendingTurn, text: String, createdAt: Int64) throws -> (
        reply: Row, next: Result<PendingTurn?, any Error>
    ) {
        try connection.withDatabase { database in
            try failing?(.reply)
            let reply = try Self.storeReply(of: turn, text: text, createdAt: createdAt, in: database)
            let next = Result<PendingTurn?, any Error> {
                try failing?(.lookup)
                return try Self.nextPendingTurn(in: database)
            }
            return (reply, next)
        }
    }

    private static func storeReply(of turn: PendingTurn, text: String, createdAt: Int64, in database: SQLiteDatabase)
        throws -> Row
    {
        try database.transaction {
            let row = try Self.insert(
                role: .assistant, text: text, createdAt: createdAt, requestId: nil, fingerprint: nil, attachments: [],
                in: database)
            try database.query(
                "UPDATE agent_turns SET reply_sequence = ? WHERE user_sequence = ?",
                [.integer(row.sequence), .integer(turn.user.sequence)])
            return row
        }
    }

    // MARK: Read position

    /// The shared read position and the public assistant replies after it.
    func readState() throws -> AgentReadState {
        try connection.withDatabase(Self.readState(in:))
    }

    /// ``readState()`` at once on the calling thread (the server's event loop answering
    /// `GET agent/read`), without waiting: `nil` while this actor uses the connection (a write
    /// may hold it through its fsync) and when the read needs more than
    /// ``readInstructionBudget`` of SQLite's instructions (many unread replies); the caller
    /// then asks ``readState()``. It sees every write a method of this actor finished.
    nonisolated func readStateIfIdle() throws -> AgentReadState? {
        try connection.withDatabaseIfIdle(instructions: Self.readInstructionBudget, Self.readState(in:))
    }

    /// What a read at once may spend: an empty room's read takes about 20 instructions and each
    /// message after the read position about 5 more, so some 800 messages are counted at once.
    static let readInstructionBudget = 4096

    private static func readState(in database: SQLiteDatabase) throws -> AgentReadState {
        // No row yet: nothing was read.
        let sequence = try database.rows("SELECT sequence FROM agent_read WHERE id = 1").first?.integer("sequence") ?? 0
        let unread = try database.row(
            """
            SELECT COUNT(*) AS unread FROM agent_messages
            WHERE sequence > ? AND role = 'assistant' AND visibility = 'public'
            """,
            [.integer(sequence)]
        ).integer("unread")
        return AgentReadState(
            readCursor: sequence == 0 ? nil : AgentRoomCursor.cursor(sequence), unread: Int(clamping: unread))
    }

    /// Moves the read position forward to `sequence` (never backwards); false when no
    /// message has that sequence.
    func markRead(_ sequence: Int64) throws -> Bool {
        try connection.withDatabase { database in
            guard
                !(try database.query("SELECT 1 FROM agent_messages WHERE sequence = ?", [.integer(sequence)])).isEmpty
            else { return false }
            try database.query(
                """
                INSERT INTO agent_read (id, sequence) VALUES (1, ?)
                ON CONFLICT(id) DO UPDATE SET sequence = MAX(sequence, excluded.sequence)
                """, [.integer(sequence)])
            return true
        }
    }

    // MARK: Uploads

    /// A stored upload: descriptor and bytes (an original is at most 8 MiB).
    struct StoredUpload: Sendable {
        var descriptor: AgentAttachment
        var bytes: [UInt8]
    }

    /// The descriptor of the upload with `uploadId`, if any (without reading its bytes).
    func descriptor(_ uploadId: String) throws -> AgentAttachment? {
        try connection.withDatabase { database in try Self.descriptor(uploadId, in: database) }
    }

    private static func descriptor(_ uploadId: String, in database: SQLiteDatabase) throws -> AgentAttachment? {
        try database.rows(
            "SELECT upload_id, file_name, mime_type, size, sha256 FROM agent_uploads WHERE upload_id = ?",
            [.text(uploadId)]
        ).first.map {
            AgentAttachment(
                uploadId: try $0.text("upload_id"), fileName: try $0.text("file_name"),
                mimeType: try $0.text("mime_type"), size: try $0.integer("size"), sha256: try $0.text("sha256"))
        }
    }

    /// The upload with `uploadId` and its original bytes, if any (downloads only).
    func upload(_ uploadId: String) throws -> StoredUpload? {
        let found = try connection.withDatabase { database -> (AgentAttachment, file: String?, bytes: [UInt8])? in
            guard let descriptor = try Self.descriptor(uploadId, in: database) else { return nil }
            let row = try database.row(
                "SELECT file, CASE WHEN file IS NULL THEN bytes ELSE X'' END AS bytes FROM agent_uploads WHERE upload_id = ?",
                [.text(uploadId)])
            return (descriptor, try row.optionalText("file"), try row.blob("bytes"))
        }
        guard let (descriptor, file, bytes) = found else { return nil }
        guard let file else { return StoredUpload(descriptor: descriptor, bytes: bytes) }
        let path = (uploadsFolder ?? ".") + "/" + file
        guard case .bytes(let original) = try BoundedFile.read(path, maxBytes: Int(clamping: descriptor.size)),
            original.count == descriptor.size
        else {
            throw StorageError(
                operation: "read", path: path,
                reason: "the original of upload \(uploadId) is missing or not its \(descriptor.size) bytes")
        }
        return StoredUpload(descriptor: descriptor, bytes: original)
    }

    /// Bytes stored for all uploads (the quota's use).
    func usedBytes() throws -> Int64 {
        try connection.withDatabase(Self.usedBytes(in:))
    }

    private static func usedBytes(in database: SQLiteDatabase) throws -> Int64 {
        try database.row("SELECT COALESCE(SUM(size), 0) AS used FROM agent_uploads").integer("used")
    }

    /// Stores an upload once; the same id with the same bytes returns the first descriptor
    /// (`created` false), with other bytes it is a 409. A new upload that would take the
    /// stored total beyond `quotaBytes` is a 507 with the quota; `admit` runs only for a new
    /// upload, before anything is stored (the rate limit), and may throw. On disk the file of
    /// `file` is flushed and renamed into place, then the row is committed: once this returns
    /// both survive a crash.
    func storeUpload(
        _ descriptor: AgentAttachment, file: UploadSpool, createdAt: Int64, quotaBytes: Int64,
        admit: @Sendable () throws -> Void
    ) throws -> (AgentAttachment, created: Bool) {
        try connection.withDatabase { database in
            if let existing = try Self.descriptor(descriptor.uploadId, in: database) {
                guard existing.sha256 == descriptor.sha256, existing.size == descriptor.size else {
                    throw APIError(
                        status: 409, message: "Upload \(descriptor.uploadId) already exists with different bytes.",
                        code: "upload_conflict", param: "uploadId")
                }
                return (existing, false)
            }
            try admit()
            let used = try Self.usedBytes(in: database)
            if used + descriptor.size > quotaBytes {
                throw APIError(
                    status: 507, message: "Your attachment storage is full.", code: "quota_exceeded",
                    details: ["quota": AgentQuota(usedBytes: used, limitBytes: quotaBytes).jsonValue])
            }
            let values: [SQLiteValue] = [
                .text(descriptor.uploadId), .text(descriptor.fileName), .text(descriptor.mimeType),
                .integer(descriptor.size), .text(descriptor.sha256), .integer(createdAt),
            ]
            guard let uploadsFolder else {
                let bytes = try file.bytes()
                try failing?(.uploadRow)
                try database.query(
                    "INSERT INTO agent_uploads (upload_id, file_name, mime_type, size, sha256, created_at, bytes) VALUES (?, ?, ?, ?, ?, ?, ?)",
                    values + [.blob(bytes)])
                file.markKept()
                return (descriptor, true)
            }
            let name = Self.fileName(for: descriptor.uploadId)
            let path = uploadsFolder + "/" + name
            // A file already there has no row (a crash came between its rename and its row):
            // this one replaces it.
            try file.commit(to: path) { step in try failing?(.uploadFile(step)) }
            do {
                try database.query(
                    "INSERT INTO agent_uploads (upload_id, file_name, mime_type, size, sha256, created_at, bytes, file) VALUES (?, ?, ?, ?, ?, ?, X'', ?)",
                    values + [.text(name)])
            } catch {
                try? AtomicFile.remove(path)
                throw error
            }
            return (descriptor, true)
        }
    }

    // MARK: Private

    private static let columns = "sequence, request_id, role, visibility, text, created_at, attachments"

    private static func insert(
        role: AgentRoomMessage.Role, visibility: AgentRoomMessage.Visibility = .public, text: String,
        createdAt: Int64, requestId: String?, fingerprint: String?, attachments: [AgentAttachment],
        in database: SQLiteDatabase
    ) throws -> Row {
        let ids = attachments.map(\.uploadId).joined(separator: "\n")
        let sequence = try database.row(
            """
            INSERT INTO agent_messages (request_id, fingerprint, role, visibility, text, created_at, attachments)
            VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING sequence
            """,
            [
                .optionalText(requestId), .optionalText(fingerprint), .text(role.rawValue), .text(visibility.rawValue),
                .text(text), .integer(createdAt), .text(ids),
            ]
        ).integer("sequence")
        return Row(
            sequence: sequence,
            message: AgentRoomMessage(
                messageId: Self.messageId(sequence), cursor: AgentRoomCursor.cursor(sequence), requestId: requestId,
                role: role, visibility: visibility, text: text, createdAt: createdAt, attachments: attachments))
    }

    private static func row(from row: SQLiteRow, in database: SQLiteDatabase) throws -> Row {
        let sequence = try row.integer("sequence")
        var attachments: [AgentAttachment] = []
        for uploadId in try row.text("attachments").split(separator: "\n").map(String.init) {
            guard let attachment = try Self.descriptor(uploadId, in: database) else {
                throw StorageError(
                    operation: "read", path: database.path,
                    reason: "column agent_messages.attachments of message \(sequence) names upload \(uploadId), "
                        + "which agent_uploads does not hold")
            }
            attachments.append(attachment)
        }
        return Row(
            sequence: sequence,
            message: AgentRoomMessage(
                messageId: Self.messageId(sequence), cursor: AgentRoomCursor.cursor(sequence),
                requestId: try row.optionalText("request_id"), role: try row.decode(AgentRoomMessage.Role.self, "role"),
                visibility: try row.decode(AgentRoomMessage.Visibility.self, "visibility"), text: try row.text("text"),
                createdAt: try row.integer("created_at"), attachments: attachments))
    }

    private static func messageId(_ sequence: Int64) -> String { "msg-\(sequence)" }
}
