/// The bytes a ``SocketConnection`` has received and its consumer not yet taken, oldest first,
/// bounded by their count: once ``limit`` bytes wait, ``isPaused`` is set (the socket is not
/// read) until takes bring them down to ``resumeLevel``.
///
/// The bound holds for the memory too, not only for the bytes: every chunk costs a header and
/// an allocation of its own (about 64 bytes), so a peer trickling 1-byte segments must not get
/// one chunk per read. A read of at least half of ``chunkSize`` is kept as it came (the
/// connection's read buffer, uncopied); a smaller one is copied onto the end of the newest chunk
/// while that stays within ``chunkSize``, else it starts a chunk of its own. A small chunk is
/// closed only by a large read behind it or by growing past half of ``chunkSize``, so at most
/// two chunks are held per half ``chunkSize`` of bytes, plus one, and a grown chunk's storage is
/// less than twice its bytes.
///
/// A plain value used under the connection's lock; it never blocks.
struct SocketInbox {
    /// Bytes held before ``isPaused`` is set.
    let limit: Int
    /// Bytes a paused inbox is taken down to before it is read again.
    let resumeLevel: Int
    /// The most bytes small reads are gathered into one chunk; a read of at least half of it is
    /// kept as a chunk of its own.
    let chunkSize: Int

    /// Received chunks not yet taken, from `head`.
    private var chunks: [[UInt8]] = []
    private var head = 0
    /// Bytes in `chunks[head...]`.
    private(set) var bytes = 0
    /// The socket is not read: the inbox reached ``limit`` and has not been taken down to
    /// ``resumeLevel`` since.
    private(set) var isPaused = false

    init(limit: Int, resumeLevel: Int, chunkSize: Int) {
        precondition(0 <= resumeLevel && resumeLevel < limit && chunkSize > 0)
        self.limit = limit
        self.resumeLevel = resumeLevel
        self.chunkSize = chunkSize
    }

    /// Nothing waits.
    var isEmpty: Bool { head == chunks.count }

    /// Chunks waiting (what each costs beyond its bytes is one header and one allocation).
    var chunkCount: Int { chunks.count - head }

    /// The storage the waiting chunks hold, in bytes (their capacities).
    var storageBytes: Int { chunks[head...].reduce(0) { $0 + $1.capacity } }

    /// Whether a read of `count` bytes is kept as it came rather than copied.
    func keepsWhole(_ count: Int) -> Bool { Self.keepsWhole(count, chunkSize: chunkSize) }

    /// Whether a read of `count` bytes is kept as it came by an inbox of `chunkSize` (for a
    /// reader deciding before it takes the inbox's lock).
    static func keepsWhole(_ count: Int, chunkSize: Int) -> Bool { count >= chunkSize / 2 }

    /// Keeps `chunk` (a large read, ``keepsWhole(_:)``) as a chunk of its own, uncopied; returns
    /// ``isPaused``.
    mutating func keep(_ chunk: [UInt8]) -> Bool {
        guard !chunk.isEmpty else { return isPaused }
        chunks.append(chunk)
        return added(chunk.count)
    }

    /// Keeps a copy of `read` (a small read): on the end of the newest chunk while that stays
    /// within ``chunkSize``, else as a chunk of its own; returns ``isPaused``.
    mutating func keep(copying read: ArraySlice<UInt8>) -> Bool {
        guard !read.isEmpty else { return isPaused }
        if head < chunks.count, chunks[chunks.count - 1].count + read.count <= chunkSize {
            let last = chunks.count - 1
            let needed = chunks[last].count + read.count
            if needed > chunks[last].capacity {
                // Doubling, but never past the chunk size: the storage stays under twice the bytes.
                chunks[last].reserveCapacity(min(chunkSize, max(needed, 2 * chunks[last].capacity)))
            }
            chunks[last].append(contentsOf: read)
        } else {
            chunks.append(Array(read))
        }
        return added(read.count)
    }

    private mutating func added(_ count: Int) -> Bool {
        bytes += count
        if bytes >= limit { isPaused = true }
        return isPaused
    }

    /// The oldest chunk, or `nil` when none waits.
    mutating func take() -> [UInt8]? {
        guard head < chunks.count else { return nil }
        let chunk = chunks[head]
        chunks[head] = []
        head += 1
        bytes -= chunk.count
        if head == chunks.count {
            chunks.removeAll(keepingCapacity: true)
            head = 0
        }
        return chunk
    }

    /// After a take: whether a paused inbox is now down to ``resumeLevel``, so reading resumes
    /// (``isPaused`` is cleared).
    mutating func resumeIfDrained() -> Bool {
        guard isPaused, bytes <= resumeLevel else { return false }
        isPaused = false
        return true
    }
}
