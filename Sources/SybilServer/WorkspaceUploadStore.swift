import SybilCore
import SybilStore
import SybilWire

/// The workspace's chunked uploads: each upload's record (key, chat, name, size, chunk size,
/// state, digest) and its chunks, in the workspace database's `ws_uploads` and
/// `ws_upload_chunks`. Nothing else joins these tables, so this actor has its own connection
/// and its own queue: chunk writes and their fsync never wait behind runs, and stay off the
/// cooperative thread pool.
actor WorkspaceUploadStore {
    /// SQLite work (and its fsync) runs on this queue, off the cooperative thread pool.
    private let executor = SerialQueueExecutor(label: "sybil.server.workspace-uploads")
    nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    /// Where a chunked upload is.
    enum UploadState: String, Sendable, Hashable {
        /// Chunks may arrive.
        case open
        /// Every chunk arrived; its digest is known. Messages may list it.
        case finished
        /// Cancelled; its chunks are gone and its key may be used again.
        case cancelled
    }

    /// A chunked upload's record.
    struct Upload: Sendable, Hashable {
        var uploadId: String
        var uploadKey: String
        var chat: WorkspaceChatKey
        var fileName: String
        var mimeType: String
        var path: String
        var size: Int64
        var chunkSize: Int64
        var state: UploadState
        var sha256: String?

        var chunkCount: Int64 { size == 0 ? 0 : (size + chunkSize - 1) / chunkSize }
    }

    private let database: SQLiteDatabase

    /// Opens the workspace database under `storage` (a private one for `.inMemory`).
    init(_ storage: SybilServerOptions.Storage) throws {
        database = try WorkspaceSchema.open(storage)
    }

    /// The upload with `uploadKey` (not cancelled), or `nil`.
    func upload(key uploadKey: String) throws -> Upload? {
        try uploads(where: "upload_key = ? AND state != 'cancelled'", [.text(uploadKey)]).first
    }

    /// The upload with `uploadId`, or `nil`.
    func upload(id uploadId: String) throws -> Upload? {
        try uploads(where: "upload_id = ?", [.text(uploadId)]).first
    }

    /// Creates an upload.
    func createUpload(_ upload: Upload) throws {
        try database.transaction {
            // A cancelled upload's key may be used again by a new one.
            try database.query(
                "UPDATE ws_uploads SET upload_key = upload_key || ':cancelled:' || upload_id WHERE upload_key = ? AND state = 'cancelled'",
                [.text(upload.uploadKey)])
            try database.query(
                """
                INSERT INTO ws_uploads (upload_id, upload_key, desktop_id, project_id, session_id, file_name, mime_type,
                path, size, chunk_size) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
                [.text(upload.uploadId), .text(upload.uploadKey)] + WorkspaceSchema.bind(upload.chat) + [
                    .text(upload.fileName), .text(upload.mimeType), .text(upload.path), .integer(upload.size),
                    .integer(upload.chunkSize),
                ])
        }
    }

    /// The stored bytes of chunk `index`, if any.
    func chunk(_ uploadId: String, index: Int64) throws -> [UInt8]? {
        try database.rows(
            "SELECT bytes FROM ws_upload_chunks WHERE upload_id = ? AND chunk_index = ?",
            [.text(uploadId), .integer(index)]
        ).first?.blob("bytes")
    }

    /// Stores chunk `index`.
    func storeChunk(_ uploadId: String, index: Int64, bytes: [UInt8]) throws {
        try database.query(
            "INSERT OR IGNORE INTO ws_upload_chunks (upload_id, chunk_index, bytes) VALUES (?, ?, ?)",
            [.text(uploadId), .integer(index), .blob(bytes)])
    }

    /// Indices of stored chunks, ascending, and their total size.
    func receivedChunks(_ uploadId: String) throws -> (indices: [Int64], bytes: Int64) {
        let rows = try database.rows(
            "SELECT chunk_index, length(bytes) AS size FROM ws_upload_chunks WHERE upload_id = ? ORDER BY chunk_index",
            [.text(uploadId)])
        var indices: [Int64] = []
        var total: Int64 = 0
        for row in rows {
            indices.append(try row.integer("chunk_index"))
            total += try row.integer("size")
        }
        return (indices, total)
    }

    /// All chunk bytes in order.
    func assembledBytes(_ uploadId: String) throws -> [UInt8] {
        var bytes: [UInt8] = []
        for row in try database.rows(
            "SELECT bytes FROM ws_upload_chunks WHERE upload_id = ? ORDER BY chunk_index", [.text(uploadId)])
        {
            bytes.append(contentsOf: try row.blob("bytes"))
        }
        return bytes
    }

    /// Marks an upload finished (with its digest) or cancelled (dropping its chunks).
    func setUploadState(_ uploadId: String, state: UploadState, sha256: String? = nil) throws {
        try database.transaction {
            try database.query(
                "UPDATE ws_uploads SET state = ?, sha256 = COALESCE(?, sha256) WHERE upload_id = ?",
                [.text(state.rawValue), .optionalText(sha256), .text(uploadId)])
            if state == .cancelled {
                try database.query("DELETE FROM ws_upload_chunks WHERE upload_id = ?", [.text(uploadId)])
            }
        }
    }

    // MARK: Private

    private func uploads(where condition: String, _ parameters: [SQLiteValue]) throws -> [Upload] {
        try database.rows(
            """
            SELECT upload_id, upload_key, desktop_id, project_id, session_id, file_name, mime_type, path, size,
            chunk_size, state, sha256 FROM ws_uploads WHERE \(condition)
            """, parameters
        ).map { row in
            // A chunk size of 0 or less would divide by zero in `chunkCount`.
            let chunkSize = try row.integer("chunk_size")
            guard chunkSize > 0 else {
                throw StorageError(
                    operation: "read", path: database.path,
                    reason: "column ws_uploads.chunk_size holds \(chunkSize), expected a positive size")
            }
            return Upload(
                uploadId: try row.text("upload_id"), uploadKey: try row.text("upload_key"),
                chat: try WorkspaceSchema.chat(in: row), fileName: try row.text("file_name"),
                mimeType: try row.text("mime_type"), path: try row.text("path"), size: try row.integer("size"),
                chunkSize: chunkSize, state: try row.decode(UploadState.self, "state"),
                sha256: try row.optionalText("sha256"))
        }
    }
}
