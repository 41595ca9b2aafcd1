import SybilCore
import SybilStore

/// The Agent room's storage: messages in server order, idempotent submissions by request id,
/// the shared read position, and uploaded originals. One SQLite connection, confined to this
/// actor.
actor AgentRoomStore {
    /// The receipt of a submission, and whether it created the message.
    struct Submission: Sendable {
        var message: AgentMessage
        var created: Bool
    }

    private let database: SQLiteDatabase

    static let migrations: [ServerDatabase.Migration] = [
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
                """)
    ]

    init(_ storage: SybilServerOptions.Storage) throws {
        database = try ServerDatabase.open(storage, file: "agent-room.sqlite", migrations: Self.migrations)
    }

    // MARK: Messages

    /// Messages after or before a sequence (or the newest), oldest first, and whether older
    /// ones exist.
    func messages(after: Int64?, before: Int64?, limit: Int) throws -> (messages: [AgentMessage], hasMoreBefore: Bool) {
        let rows: [[SQLiteValue]]
        if let after {
            rows = try database.query(
                "SELECT \(Self.columns) FROM agent_messages WHERE sequence > ? ORDER BY sequence ASC LIMIT ?",
                [.integer(after), .integer(Int64(limit))])
        } else {
            let bound = before ?? Int64.max
            rows = Array(
                try database.query(
                    "SELECT \(Self.columns) FROM agent_messages WHERE sequence < ? ORDER BY sequence DESC LIMIT ?",
                    [.integer(bound), .integer(Int64(limit))]
                ).reversed())
        }
        let messages = try rows.map(message(from:))
        let oldest = messages.first?.sequence ?? (after.map { $0 + 1 } ?? before ?? Int64.max)
        let older = try database.query("SELECT 1 FROM agent_messages WHERE sequence < ? LIMIT 1", [.integer(oldest)])
        return (messages, !older.isEmpty)
    }

    /// The newest message's sequence (0 when the room is empty).
    func newestSequence() throws -> Int64 {
        try database.query("SELECT COALESCE(MAX(sequence), 0) FROM agent_messages")[0][0].integerValue ?? 0
    }

    /// Stores a client submission once per request id. The same id with the same fingerprint
    /// returns the first message; with another fingerprint it is a 409.
    func submit(requestId: String, text: String, createdAt: Int64, attachmentIds: [String], fingerprint: String)
        throws -> Submission
    {
        if let existing = try database.query(
            "SELECT \(Self.columns), fingerprint FROM agent_messages WHERE request_id = ?", [.text(requestId)]
        ).first {
            guard existing.last?.textValue == fingerprint else {
                throw APIError(
                    status: 409,
                    message: "Request \(requestId) was already used for a different message.",
                    code: "request_conflict", param: "requestId")
            }
            return Submission(message: try message(from: Array(existing.dropLast())), created: false)
        }
        var attachments: [AgentUpload] = []
        for (index, uploadId) in attachmentIds.enumerated() {
            guard let upload = try descriptor(uploadId) else {
                throw APIError.invalid(
                    "Attachment \(uploadId) was never uploaded; upload it with POST agent/uploads first.",
                    param: "attachments[\(index)]", code: "unknown_upload")
            }
            attachments.append(upload)
        }
        let message = try insert(
            role: "user", visibility: "public", text: text, createdAt: createdAt, requestId: requestId,
            fingerprint: fingerprint, attachments: attachments)
        return Submission(message: message, created: true)
    }

    /// Whether a message was already submitted with `requestId`.
    func hasSubmission(_ requestId: String) throws -> Bool {
        !(try database.query("SELECT 1 FROM agent_messages WHERE request_id = ?", [.text(requestId)])).isEmpty
    }

    /// Appends a message the server itself writes (agent replies, tool calls).
    func append(role: String, visibility: String, text: String, createdAt: Int64) throws -> AgentMessage {
        try insert(
            role: role, visibility: visibility, text: text, createdAt: createdAt, requestId: nil, fingerprint: nil,
            attachments: [])
    }

    // MARK: Read position

    /// The shared read position and the public assistant replies after it.
    func readState() throws -> (sequence: Int64, unread: Int) {
        let sequence =
            try database.query("SELECT sequence FROM agent_read WHERE id = 1").first?[0].integerValue ?? 0
        let unread =
            try database.query(
                "SELECT COUNT(*) FROM agent_messages WHERE sequence > ? AND role = 'assistant' AND visibility = 'public'",
                [.integer(sequence)])[0][0].integerValue ?? 0
        return (sequence, Int(unread))
    }

    /// Moves the read position forward to `sequence` (never backwards); false when no
    /// message has that sequence.
    func markRead(_ sequence: Int64) throws -> Bool {
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

    // MARK: Uploads

    /// A stored upload: descriptor and bytes.
    struct StoredUpload: Sendable {
        var descriptor: AgentUpload
        var bytes: [UInt8]
    }

    /// The descriptor of the upload with `uploadId`, if any (without reading its bytes).
    func descriptor(_ uploadId: String) throws -> AgentUpload? {
        try database.query(
            "SELECT upload_id, file_name, mime_type, size, sha256 FROM agent_uploads WHERE upload_id = ?",
            [.text(uploadId)]
        ).first.map {
            AgentUpload(
                uploadId: $0[0].textValue ?? "", fileName: $0[1].textValue ?? "", mimeType: $0[2].textValue ?? "",
                size: $0[3].integerValue ?? 0, sha256: $0[4].textValue ?? "")
        }
    }

    /// The upload with `uploadId` and its original bytes, if any (downloads only).
    func upload(_ uploadId: String) throws -> StoredUpload? {
        guard let descriptor = try descriptor(uploadId) else { return nil }
        let bytes = try database.query("SELECT bytes FROM agent_uploads WHERE upload_id = ?", [.text(uploadId)])
        return StoredUpload(descriptor: descriptor, bytes: bytes.first?[0].blobValue ?? [])
    }

    /// Bytes stored for all uploads (the quota's use).
    func usedBytes() throws -> Int64 {
        try database.query("SELECT COALESCE(SUM(size), 0) FROM agent_uploads")[0][0].integerValue ?? 0
    }

    /// Stores an upload once; the same id with the same bytes returns the first descriptor
    /// (`created` false), with other bytes it is a 409.
    func storeUpload(_ descriptor: AgentUpload, bytes: [UInt8], createdAt: Int64) throws -> (AgentUpload, created: Bool)
    {
        if let existing = try self.descriptor(descriptor.uploadId) {
            guard existing.sha256 == descriptor.sha256, existing.size == descriptor.size else {
                throw APIError(
                    status: 409, message: "Upload \(descriptor.uploadId) already exists with different bytes.",
                    code: "upload_conflict")
            }
            return (existing, false)
        }
        try database.query(
            "INSERT INTO agent_uploads (upload_id, file_name, mime_type, size, sha256, bytes, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
            [
                .text(descriptor.uploadId), .text(descriptor.fileName), .text(descriptor.mimeType),
                .integer(descriptor.size), .text(descriptor.sha256), .blob(bytes), .integer(createdAt),
            ])
        return (descriptor, true)
    }

    // MARK: Private

    private static let columns = "sequence, request_id, role, visibility, text, created_at, attachments"

    private func insert(
        role: String, visibility: String, text: String, createdAt: Int64, requestId: String?, fingerprint: String?,
        attachments: [AgentUpload]
    ) throws -> AgentMessage {
        let ids = attachments.map(\.uploadId).joined(separator: "\n")
        let row = try database.query(
            """
            INSERT INTO agent_messages (request_id, fingerprint, role, visibility, text, created_at, attachments)
            VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING sequence
            """,
            [
                .optionalText(requestId), .optionalText(fingerprint), .text(role), .text(visibility), .text(text),
                .integer(createdAt), .text(ids),
            ])
        return AgentMessage(
            sequence: row[0][0].integerValue ?? 0, requestId: requestId, role: role, visibility: visibility, text: text,
            createdAt: createdAt, attachments: attachments)
    }

    private func message(from row: [SQLiteValue]) throws -> AgentMessage {
        let ids = (row[6].textValue ?? "").split(separator: "\n").map(String.init)
        return AgentMessage(
            sequence: row[0].integerValue ?? 0, requestId: row[1].textValue, role: row[2].textValue ?? "",
            visibility: row[3].textValue ?? "", text: row[4].textValue ?? "", createdAt: row[5].integerValue ?? 0,
            attachments: try ids.compactMap { try descriptor($0) })
    }
}
