/// The bytes a ``SocketConnection`` has received and its consumer not yet taken, oldest first,
/// bounded by their count: once ``limit`` bytes wait, ``isPaused`` is set (the socket is not
/// read) until takes bring them down to ``resumeLevel``.
///
/// The bound holds for the memory too, not only for the bytes: every chunk costs a header and
/// an allocation of its own, so a peer trickling 1-byte segments must not get one chunk per
/// read. A read is copied onto the end of the newest chunk when it fits in that chunk's storage
/// (which never grows), else the read buffer itself becomes the newest chunk, uncopied, and the
/// reader gets a new buffer. Each byte is copied at most once, and two chunks in a row always
/// hold more bytes than the first one's storage, so with read buffers of one size the chunks
/// number at most two per buffer's worth of bytes, plus one, and their storage is less than
/// twice the bytes plus one buffer (a peer trickling single bytes fills 256 KiB with four
/// 64 KiB chunks).
///
/// A plain value used under the connection's lock; it never blocks.
struct SocketInbox {
    /// Bytes held before ``isPaused`` is set.
    let limit: Int
    /// Bytes a paused inbox is taken down to before it is read again.
    let resumeLevel: Int

    /// Received chunks not yet taken, from `head`.
    private var chunks: [[UInt8]] = []
    private var head = 0
    /// Bytes in `chunks[head...]`.
    private(set) var bytes = 0
    /// The socket is not read: the inbox reached ``limit`` and has not been taken down to
    /// ``resumeLevel`` since.
    private(set) var isPaused = false

    init(limit: Int, resumeLevel: Int) {
        precondition(0 <= resumeLevel && resumeLevel < limit)
        self.limit = limit
        self.resumeLevel = resumeLevel
    }

    /// Nothing waits.
    var isEmpty: Bool { head == chunks.count }

    /// Chunks waiting (what each costs beyond its bytes is one header and one allocation).
    var chunkCount: Int { chunks.count - head }

    /// The storage the waiting chunks hold, in bytes (their capacities).
    var storageBytes: Int { chunks[head...].reduce(0) { $0 + $1.capacity } }

    /// Keeps the first `count` bytes of `buffer`, just read: copied onto the end of the newest
    /// chunk when they fit in its storage, else `buffer` itself (cut to `count`) becomes the
    /// newest chunk and is replaced by `replacement()`. Returns ``isPaused``.
    mutating func keep(_ count: Int, of buffer: inout [UInt8], replacement: () -> [UInt8]) -> Bool {
        precondition(0 <= count && count <= buffer.count)
        guard count > 0 else { return isPaused }
        let newest = chunks.count - 1
        if head <= newest, chunks[newest].count + count <= chunks[newest].capacity {
            chunks[newest].append(contentsOf: buffer[0..<count])
        } else {
            buffer.removeLast(buffer.count - count)
            chunks.append(buffer)
            buffer = replacement()
        }
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
