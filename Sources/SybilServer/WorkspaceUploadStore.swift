import Foundation
import SybilCore
import SybilHTTP
import SybilStore
import SybilWire

/// The workspace's chunked uploads: each upload's record (key, chat, name, size, chunk size,
/// state, digest) in the workspace database's `ws_uploads`, a row per chunk received in
/// `ws_upload_chunks`. Nothing else joins these tables, so this actor has its own connection
/// and its own queue: chunk writes and their fsync never wait behind runs, and stay off the
/// cooperative thread pool.
///
/// On disk an upload's bytes are a file in ``uploadsFolder``, named by its id's SHA-256:
/// `<name>.part` while chunks arrive (each written at its offset and flushed to disk before its
/// row is committed, so a chunk answered survives a crash and one not answered is sent again),
/// renamed to `<name>` when the upload finishes (its digest read back in pieces; memory does not
/// grow with the file), before its row says finished. At start, files no open or finished
/// upload owns are removed and a finish a crash interrupted is undone (its upload is still
/// open: the client's retry finishes it). With in-memory storage, and for uploads begun before
/// files (their chunks are in the database), the chunks' bytes are in their rows, in memory
/// within the ``UploadMemoryBudget``.
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
        /// The name of its file in the uploads folder; `nil` when its chunks are in the
        /// database. The store decides at ``createUpload(_:)``.
        var file: String? = nil

        var chunkCount: Int64 { size == 0 ? 0 : (size + chunkSize - 1) / chunkSize }
    }

    /// What became of a chunk sent.
    enum ChunkOutcome: Sendable, Hashable {
        /// Stored now.
        case stored
        /// Stored before with the same bytes.
        case alreadyStored
        /// Stored before with other bytes.
        case conflict
    }

    /// A step a test can make fail as a crash there would (``init(_:budget:failing:)``).
    enum Step: Sendable, Hashable {
        /// A chunk's bytes are in its file, flushed, and its row is not yet written.
        case chunkWritten
        /// Finishing: after this step of renaming the file into place, before the row says so.
        case finish(SpoolFile.Step)
    }

    /// The uploads folder's name under a storage directory.
    static let uploadsFolderName = "workspace-uploads"
    /// The suffix of an upload's file while chunks arrive.
    static let partSuffix = ".part"

    private let database: SQLiteDatabase
    /// Where uploads' files are (storage in a directory), or `nil` (in memory).
    nonisolated let uploadsFolder: String?
    /// What in-memory storage may hold of chunks (`nil` on disk).
    private let budget: UploadMemoryBudget?
    private let failing: (@Sendable (Step) throws -> Void)?

    /// Opens the workspace database under `storage` (a private one for `.inMemory`, whose
    /// chunks `budget` bounds) and tidies the uploads folder as a crash may have left it.
    /// `failing` runs after the steps of ``Step`` and stops them by throwing (tests only).
    init(
        _ storage: SybilServerOptions.Storage, budget: UploadMemoryBudget? = nil,
        failing: (@Sendable (Step) throws -> Void)? = nil
    ) throws {
        database = try WorkspaceSchema.open(storage)
        // Every commit reaches the disk, whatever the build of SQLite defaults to: an answered
        // chunk's row (its bytes are flushed before it) survives a crash.
        try database.execute("PRAGMA synchronous = FULL")
        self.failing = failing
        switch storage {
        case .inMemory:
            uploadsFolder = nil
            self.budget = budget
        case .directory(let path):
            let folder = path + "/" + Self.uploadsFolderName
            uploadsFolder = folder
            self.budget = nil
            try Self.recover(folder, in: database)
        }
    }

    /// Removes the files no open or finished upload owns, undoes a finish interrupted after its
    /// rename, and forgets the chunks of an open upload whose file is gone.
    private static func recover(_ folder: String, in database: SQLiteDatabase) throws {
        var open: [String: String] = [:]
        var finished: Set<String> = []
        for row in try database.rows(
            "SELECT upload_id, file, state FROM ws_uploads WHERE file IS NOT NULL AND state != 'cancelled'")
        {
            let file = try row.text("file")
            if try row.text("state") == UploadState.open.rawValue {
                open[file] = try row.text("upload_id")
            } else {
                finished.insert(file)
            }
        }
        let names = Set((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [])
        for name in names {
            let path = folder + "/" + name
            if name.hasSuffix(partSuffix) {
                if open[String(name.dropLast(partSuffix.count))] == nil { try AtomicFile.remove(path) }
            } else if isFileName(name), !finished.contains(name) {
                if open[name] != nil {
                    // Renamed, then the crash: every chunk is in it, and the upload is open.
                    guard rename(path, path + partSuffix) == 0 else {
                        throw StorageError(
                            operation: "rename", path: path, reason: String(cString: strerror(errno)))
                    }
                } else {
                    try AtomicFile.remove(path)
                }
            }
        }
        for (file, uploadId) in open where !names.contains(file + partSuffix) && !names.contains(file) {
            try database.query("DELETE FROM ws_upload_chunks WHERE upload_id = ?", [.text(uploadId)])
        }
    }

    /// Whether `name` is what ``fileName(for:)`` makes.
    private static func isFileName(_ name: String) -> Bool {
        name.utf8.count == 64 && name.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }

    /// The name of an upload's file: its id's SHA-256.
    static func fileName(for uploadId: String) -> String {
        SHA256Digest.hex(Array(uploadId.utf8))
    }

    /// The upload with `uploadKey` (not cancelled), or `nil`.
    func upload(key uploadKey: String) throws -> Upload? {
        try uploads(where: "upload_key = ? AND state != 'cancelled'", [.text(uploadKey)]).first
    }

    /// The upload with `uploadId`, or `nil`.
    func upload(id uploadId: String) throws -> Upload? {
        try uploads(where: "upload_id = ?", [.text(uploadId)]).first
    }

    /// Creates an upload (its chunks go to a file on disk, to rows in memory).
    func createUpload(_ upload: Upload) throws {
        let file = uploadsFolder == nil ? nil : Self.fileName(for: upload.uploadId)
        try database.transaction {
            // A cancelled upload's key may be used again by a new one.
            try database.query(
                "UPDATE ws_uploads SET upload_key = upload_key || ':cancelled:' || upload_id WHERE upload_key = ? AND state = 'cancelled'",
                [.text(upload.uploadKey)])
            try database.query(
                """
                INSERT INTO ws_uploads (upload_id, upload_key, desktop_id, project_id, session_id, file_name, mime_type,
                path, size, chunk_size, file) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
                [.text(upload.uploadId), .text(upload.uploadKey)] + WorkspaceSchema.bind(upload.chat) + [
                    .text(upload.fileName), .text(upload.mimeType), .text(upload.path), .integer(upload.size),
                    .integer(upload.chunkSize), .optionalText(file),
                ])
        }
    }

    /// Stores chunk `index` of the open upload `uploadId` unless it is stored already; says
    /// which. On disk the bytes are written at the chunk's offset and flushed before its row
    /// is committed; in memory they are the row's, within the budget (a 507 naming
    /// `params.data` when they do not fit).
    func storeChunk(_ uploadId: String, index: Int64, bytes: [UInt8]) throws -> ChunkOutcome {
        guard let upload = try upload(id: uploadId), upload.state == .open else {
            throw APIError(status: 409, message: "Upload \(uploadId) is not open.", code: "upload_closed")
        }
        let digest = SHA256Digest.hex(bytes)
        if let stored = try database.rows(
            """
            SELECT sha256, CASE WHEN sha256 IS NULL THEN bytes ELSE X'' END AS bytes
            FROM ws_upload_chunks WHERE upload_id = ? AND chunk_index = ?
            """,
            [.text(uploadId), .integer(index)]
        ).first {
            // Rows from before digests were kept hold their bytes.
            let same = try stored.optionalText("sha256").map { $0 == digest } ?? (try stored.blob("bytes") == bytes)
            return same ? .alreadyStored : .conflict
        }
        let values: [SQLiteValue] = [.text(uploadId), .integer(index), .integer(Int64(bytes.count)), .text(digest)]
        if let file = upload.file, let uploadsFolder {
            let spool = try SpoolFile.opened(uploadsFolder + "/" + file + Self.partSuffix)
            try spool.write(bytes, at: index * upload.chunkSize)
            try spool.sync()
            try failing?(.chunkWritten)
            try database.query(
                "INSERT INTO ws_upload_chunks (upload_id, chunk_index, size, sha256, bytes) VALUES (?, ?, ?, ?, X'')",
                values)
        } else {
            try budget?.reserve(Int64(bytes.count), param: "params.data")
            do {
                try database.query(
                    "INSERT INTO ws_upload_chunks (upload_id, chunk_index, size, sha256, bytes) VALUES (?, ?, ?, ?, ?)",
                    values + [.blob(bytes)])
            } catch {
                budget?.release(Int64(bytes.count))
                throw error
            }
        }
        return .stored
    }

    /// Indices of stored chunks, ascending, and their total size.
    func receivedChunks(_ uploadId: String) throws -> (indices: [Int64], bytes: Int64) {
        let rows = try database.rows(
            """
            SELECT chunk_index, COALESCE(size, length(bytes)) AS size FROM ws_upload_chunks
            WHERE upload_id = ? ORDER BY chunk_index
            """,
            [.text(uploadId)])
        var indices: [Int64] = []
        var total: Int64 = 0
        for row in rows {
            indices.append(try row.integer("chunk_index"))
            total += try row.integer("size")
        }
        return (indices, total)
    }

    /// Calls `body` with the upload's bytes in order, a piece (at most a chunk) at a time.
    func forEachPiece(of uploadId: String, _ body: (UnsafeRawBufferPointer) throws -> Void) throws {
        guard let upload = try upload(id: uploadId) else { return }
        if let file = upload.file, let uploadsFolder {
            let name = uploadsFolder + "/" + file + (upload.state == .finished ? "" : Self.partSuffix)
            _ = try SpoolFile.readPieces(of: name, body)
            return
        }
        // One chunk read at a time, not every chunk at once.
        for index in try receivedChunks(uploadId).indices {
            let bytes = try database.row(
                "SELECT bytes FROM ws_upload_chunks WHERE upload_id = ? AND chunk_index = ?",
                [.text(uploadId), .integer(index)]
            ).blob("bytes")
            try bytes.withUnsafeBytes(body)
        }
    }

    /// Finishes the open upload `uploadId`, every chunk received: its SHA-256 is read from its
    /// bytes in pieces; on disk its file is flushed and renamed into place; then its row says
    /// finished, with the digest, which is returned.
    func finishUpload(_ uploadId: String) throws -> String {
        guard let upload = try upload(id: uploadId), upload.state == .open else {
            throw APIError(status: 409, message: "Upload \(uploadId) is not open.", code: "upload_closed")
        }
        let digest = SHA256Stream()
        var total: Int64 = 0
        if let file = upload.file, let uploadsFolder {
            let part = uploadsFolder + "/" + file + Self.partSuffix
            let finished = uploadsFolder + "/" + file
            // A finish that failed after its rename (the directory's flush or the row's update
            // failed: a full or failing disk) left every chunk under the final name, the upload
            // still open: take the file back, as the next start would.
            if access(part, F_OK) != 0, access(finished, F_OK) == 0, rename(finished, part) != 0 {
                throw StorageError(operation: "rename", path: finished, reason: String(cString: strerror(errno)))
            }
            // A file with no chunk (an empty upload) is created here.
            let spool = try SpoolFile.opened(part)
            total = try SpoolFile.readPieces(of: part) { digest.update($0) }
            guard total == upload.size else {
                throw StorageError(
                    operation: "read", path: part, reason: "holds \(total) bytes, expected \(upload.size)")
            }
            try spool.commit(to: finished) { step in try failing?(.finish(step)) }
        } else {
            try forEachPiece(of: uploadId) { piece in
                digest.update(piece)
                total += Int64(piece.count)
            }
        }
        let sha256 = digest.finalHex()
        try database.query(
            "UPDATE ws_uploads SET state = 'finished', sha256 = ? WHERE upload_id = ?",
            [.text(sha256), .text(uploadId)])
        return sha256
    }

    /// Cancels the open upload `uploadId`: its chunks are dropped (their file removed, their
    /// memory given back) and its key may be used again.
    func cancelUpload(_ uploadId: String) throws {
        guard let upload = try upload(id: uploadId), upload.state == .open else { return }
        let held = try receivedChunks(uploadId).bytes
        try database.transaction {
            try database.query("UPDATE ws_uploads SET state = 'cancelled' WHERE upload_id = ?", [.text(uploadId)])
            try database.query("DELETE FROM ws_upload_chunks WHERE upload_id = ?", [.text(uploadId)])
        }
        if let file = upload.file, let uploadsFolder {
            // Left behind by a failure, it goes at the next start.
            try? AtomicFile.remove(uploadsFolder + "/" + file + Self.partSuffix)
        } else {
            budget?.release(held)
        }
    }

    // MARK: Private

    private func uploads(where condition: String, _ parameters: [SQLiteValue]) throws -> [Upload] {
        try database.rows(
            """
            SELECT upload_id, upload_key, desktop_id, project_id, session_id, file_name, mime_type, path, size,
            chunk_size, state, sha256, file FROM ws_uploads WHERE \(condition)
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
                sha256: try row.optionalText("sha256"), file: try row.optionalText("file"))
        }
    }
}
