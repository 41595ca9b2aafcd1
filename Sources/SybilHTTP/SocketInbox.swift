/// The bytes a ``SocketConnection`` has received and its consumer not yet taken, oldest first,
/// bounded twice: once ``limit`` bytes or ``chunkLimit`` chunks wait, ``isPaused`` is set (the
/// socket is not read) until takes bring them down to ``resumeLevel`` bytes and half the
/// chunks.
///
/// The chunk bound is the memory's: every chunk costs about 64 bytes beyond its own (the
/// array's 32-byte header, the allocator's header and rounding, the inbox's slot), so a peer
/// trickling 1-byte segments could otherwise make a paused inbox hold 262,144 arrays (some
/// 16 MiB) under a 256 KiB bound. With 4,096 chunks at most, that overhead stays near the byte
/// bound itself, and a chunk of 64 bytes or more costs at most about twice its bytes.
///
/// A plain value used under the connection's lock; it never blocks or copies.
struct SocketInbox {
    /// Bytes held before ``isPaused`` is set.
    let limit: Int
    /// Bytes a paused inbox is taken down to before it is read again.
    let resumeLevel: Int
    /// Chunks held before ``isPaused`` is set; a paused inbox is read again only once at most
    /// half as many wait.
    let chunkLimit: Int

    /// Received chunks not yet taken, from `head`.
    private var chunks: [[UInt8]] = []
    private var head = 0
    /// Bytes in `chunks[head...]`.
    private(set) var bytes = 0
    /// The socket is not read: the inbox reached a bound and has not been taken down since.
    private(set) var isPaused = false

    init(limit: Int, resumeLevel: Int, chunkLimit: Int) {
        precondition(0 <= resumeLevel && resumeLevel < limit && chunkLimit > 1)
        self.limit = limit
        self.resumeLevel = resumeLevel
        self.chunkLimit = chunkLimit
    }

    /// Nothing waits.
    var isEmpty: Bool { head == chunks.count }

    /// Chunks waiting.
    var chunkCount: Int { chunks.count - head }

    /// Keeps `chunk` (nothing when it is empty); returns ``isPaused``.
    mutating func keep(_ chunk: [UInt8]) -> Bool {
        guard !chunk.isEmpty else { return isPaused }
        chunks.append(chunk)
        bytes += chunk.count
        if bytes >= limit || chunkCount >= chunkLimit { isPaused = true }
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
        } else if head >= Self.compactionFloor, head * 2 >= chunks.count {
            // A consumer that never quite catches up never empties the inbox: without this the
            // taken slots would pile up, one per read for the connection's whole life.
            chunks.removeFirst(head)
            head = 0
        }
        return chunk
    }

    /// Taken slots are dropped once at least this many lead the array and they are at least
    /// half of it (each drop moves no more slots than it frees, so a take stays O(1) amortized).
    static let compactionFloor = 64

    /// Slots the array holds, taken ones included (what the inbox costs beyond its chunks).
    var slots: Int { chunks.count }

    /// After a take: whether a paused inbox is now down to ``resumeLevel`` bytes and half of
    /// ``chunkLimit`` chunks, so reading resumes (``isPaused`` is cleared).
    mutating func resumeIfDrained() -> Bool {
        guard isPaused, bytes <= resumeLevel, chunkCount <= chunkLimit / 2 else { return false }
        isPaused = false
        return true
    }
}
