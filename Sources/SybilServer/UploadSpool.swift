import SybilCore
import SybilHTTP
import SybilStore

/// The file of one Agent-room upload as its bytes arrive: written to a temporary file in the
/// store's uploads folder (SybilStore's ``SpoolFile``), or for `--in-memory` kept in memory
/// within the ``UploadMemoryBudget``; hashed on the way, with its first bytes kept for the
/// image-header check. So a slow client's upload costs the server a file on disk, not its size
/// in memory, and finishing it copies nothing.
///
/// A write that fails (a full disk) is remembered, later bytes are dropped, and the handler
/// throws it (its cause goes to the server's log). The temporary file is removed when the
/// spool is released without being stored (a refused upload, a client that left mid-body or
/// stalled past the transport's body timeouts); a crash leaves it for the store's next start.
/// Bytes arrive on the event loop and the spool is handed on to one task after another, one
/// call at a time.
final class UploadSpool: Sendable {
    /// How many of the first bytes stay in memory: enough for any PNG, GIF or WebP header and
    /// for a JPEG's frame header after ordinary metadata.
    static let headBytes = 64 << 10

    /// Where the bytes of the spool's temporary files go.
    enum Place: Sendable {
        /// A temporary file in this folder.
        case directory(String)
        /// Memory, within this budget.
        case memory(UploadMemoryBudget)
    }

    private struct State {
        var file: SpoolFile?
        var memory: [UInt8] = []
        var digest: SHA256Stream? = SHA256Stream()
        var sha256 = ""
        var head: [UInt8] = []
        var size: Int64 = 0
        var failure: (any Error)?
        /// Bytes held against the memory budget.
        var reserved: Int64 = 0
        /// Stored: the memory reservation now belongs to the stored upload.
        var kept = false
    }

    private let place: Place
    private let param: String
    private let state = Locked(State())

    /// A spool writing to `place`; a refusal by the memory budget names `param`.
    init(_ place: Place, param: String) {
        self.place = place
        self.param = param
    }

    deinit {
        // A spool never stored gives its memory back; its file goes with its SpoolFile.
        let reserved = state.withLock { $0.kept ? 0 : $0.reserved }
        if reserved > 0, case .memory(let budget) = place { budget.release(reserved) }
    }

    /// Takes the next bytes of the file. Throws only the memory budget's 507.
    func append(_ bytes: some Collection<UInt8>) throws(APIError) {
        guard !bytes.isEmpty else { return }
        let contiguous = Array(bytes)
        try state.withLock { (state: inout State) throws(APIError) in
            guard state.failure == nil else { return }
            switch place {
            case .memory(let budget):
                try budget.reserve(Int64(contiguous.count), param: param)
                state.reserved += Int64(contiguous.count)
                state.memory += contiguous
            case .directory(let directory):
                do {
                    if state.file == nil { state.file = try SpoolFile.created(in: directory, prefix: "tmp-") }
                    try state.file?.append(contiguous)
                } catch {
                    state.failure = error
                    state.file = nil
                    return
                }
            }
            if state.head.count < Self.headBytes {
                state.head += contiguous.prefix(Self.headBytes - state.head.count)
            }
            state.digest?.update(contiguous)
            state.size += Int64(contiguous.count)
        }
    }

    /// The number of bytes taken.
    var size: Int64 { state.withLock { $0.size } }

    /// The first ``headBytes`` bytes (all of a smaller file).
    var head: [UInt8] { state.withLock { $0.head } }

    /// The SHA-256 of the bytes taken, in lowercase hex; no byte is taken after the first call.
    var sha256: String {
        state.withLock { state in
            if let digest = state.digest {
                state.sha256 = digest.finalHex()
                state.digest = nil
            }
            return state.sha256
        }
    }

    /// Throws the failure of a write, if one failed.
    func checkWritten() throws {
        if let failure = state.withLock({ $0.failure }) { throw failure }
    }

    /// All the bytes (read back from the file when on disk; an image's header check beyond
    /// ``headBytes`` needs them).
    func bytes() throws -> [UInt8] {
        let (file, memory, size) = try state.withLock { state in
            if let failure = state.failure { throw failure }
            return (state.file, state.memory, state.size)
        }
        guard case .directory = place else { return memory }
        guard let file, size > 0 else { return [] }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(Int(size))
        _ = try SpoolFile.readPieces(of: file.path) { bytes.append(contentsOf: $0) }
        return bytes
    }

    /// Flushes the file to disk and renames it to `path` (an empty file for an empty upload);
    /// `checkpoint` runs after each step of the rename (tests stop it there as a crash would).
    /// Bytes in memory are written to `path` atomically.
    func commit(to path: String, checkpoint: (SpoolFile.Step) throws -> Void) throws {
        guard case .directory(let directory) = place else {
            try AtomicFile.write(try bytes(), to: path)
            return
        }
        let file = try state.withLock { state in
            if let failure = state.failure { throw failure }
            if state.file == nil { state.file = try SpoolFile.created(in: directory, prefix: "tmp-") }
            return state.file!
        }
        try file.commit(to: path, checkpoint: checkpoint)
    }

    /// Marks the bytes as kept by a store that holds them in its database (in-memory storage),
    /// once they are stored: the reservation in the memory budget now belongs to the stored
    /// upload and is not given back when this spool is released. Until then (an insert that
    /// failed) releasing the spool gives it back.
    func markKept() {
        state.withLock { $0.kept = true }
    }
}
