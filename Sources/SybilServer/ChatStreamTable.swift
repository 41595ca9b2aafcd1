/// The rules of resumable chat streams, without sockets or tasks: which streams exist, the
/// events each has produced, and when they go. A value the registry keeps behind a lock; tests
/// drive it with plain durations.
///
/// Every stream keeps all its events (so a reader may resume from any event id) up to
/// ``Limits/maximumBytes``, and all streams together up to ``Limits/maximumTotalBytes`` (the
/// oldest finished streams make room first): the append that would pass either is replaced by
/// an error frame that ends the stream. A finished stream stays addressable for ``Limits/retention``; at most
/// ``Limits/maximumStreams`` are kept, the oldest finished evicted first to make room, and when
/// all are running a new one is refused. Ids of streams that went are remembered (up to
/// ``Limits/rememberedGoneIds``) so a late reader hears "expired" rather than "unknown".
struct ChatStreamTable: Sendable {
    /// The bounds.
    struct Limits: Sendable, Hashable {
        /// Event bytes (data and type) one stream may hold.
        var maximumBytes = 4 << 20
        /// Event bytes all streams together may hold.
        var maximumTotalBytes = 64 << 20
        /// Streams kept, running and finished.
        var maximumStreams = 256
        /// How long a finished stream stays addressable.
        var retention: Duration = .seconds(300)
        /// Ids of evicted or expired streams remembered for `stream_expired`.
        var rememberedGoneIds = 4096
    }

    /// One stored event; `sequence` is its `id:` (1, 2, …).
    struct Event: Sendable, Hashable {
        var sequence: Int64
        var data: String
        var type: String?
    }

    /// What an append did.
    enum Appended: Sendable, Hashable {
        /// Stored with this sequence number.
        case stored(Int64)
        /// The stream was over its byte cap: an error frame ended it instead.
        case overLimit
        /// The stream is finished or unknown: nothing was stored.
        case closed
    }

    /// What a reader gets.
    enum Read: Sendable, Hashable {
        /// The events after the asked one, and whether the stream has finished (no more will come).
        case events([Event], finished: Bool)
        /// No such stream was ever kept.
        case notFound
        /// The stream existed but is gone (evicted or past its retention).
        case expired
        /// The asked event id is past the newest event.
        case beyondEnd(newest: Int64)
    }

    private struct Stream: Sendable {
        var events: [Event] = []
        var bytes = 0
        var finishedAt: Duration?
        var opened: UInt64
    }

    let limits: Limits
    private var streams: [String: Stream] = [:]
    private var gone: Set<String> = []
    private var goneOrder: [String] = []
    private var opened: UInt64 = 0
    /// Event bytes held by all streams.
    private(set) var totalBytes = 0

    /// An empty table with `limits`.
    init(limits: Limits = Limits()) {
        self.limits = limits
    }

    /// Streams kept now.
    var count: Int { streams.count }

    /// Opens stream `id` at `now`, first dropping expired streams and, when full, the oldest
    /// finished one. Returns false (nothing opened) when every kept stream is still running.
    mutating func open(_ id: String, now: Duration) -> Bool {
        expire(now: now)
        if streams.count >= limits.maximumStreams {
            let oldest = streams.filter { $0.value.finishedAt != nil }
                .min { ($0.value.finishedAt!, $0.value.opened) < ($1.value.finishedAt!, $1.value.opened) }
            guard let oldest else { return false }
            forget(oldest.key)
        }
        opened += 1
        totalBytes -= streams[id]?.bytes ?? 0  // an id opened again starts empty
        streams[id] = Stream(opened: opened)
        return true
    }

    /// Appends an event to running stream `id`. Past the byte cap the stream ends with
    /// `overLimitFrame` (an error event) instead.
    mutating func append(_ id: String, data: String, type: String? = nil, now: Duration, overLimitFrame: String)
        -> Appended
    {
        guard let count = streams[id]?.events.count, let bytes = streams[id]?.bytes, streams[id]?.finishedAt == nil
        else { return .closed }
        let size = data.utf8.count + (type?.utf8.count ?? 0)
        // Others' finished streams make room only for an append this stream may take.
        if bytes + size <= limits.maximumBytes, totalBytes + size > limits.maximumTotalBytes {
            makeRoom(for: size, keeping: id)
        }
        guard bytes + size <= limits.maximumBytes, totalBytes + size <= limits.maximumTotalBytes else {
            // Mutated in place: a copy of the stream would copy its whole event list per append.
            streams[id]?.events.append(Event(sequence: Int64(count + 1), data: overLimitFrame, type: "error"))
            streams[id]?.finishedAt = now
            return .overLimit
        }
        let sequence = Int64(count + 1)
        streams[id]?.events.append(Event(sequence: sequence, data: data, type: type))
        streams[id]?.bytes += size
        totalBytes += size
        return .stored(sequence)
    }

    /// Forgets finished streams, oldest first, until `size` more bytes fit in the total (or none
    /// is left to forget); `id` is never one of them.
    private mutating func makeRoom(for size: Int, keeping id: String) {
        let finished = streams.filter { $0.key != id && $0.value.finishedAt != nil }
            .sorted { ($0.value.finishedAt!, $0.value.opened) < ($1.value.finishedAt!, $1.value.opened) }
        for (finishedId, _) in finished where totalBytes + size > limits.maximumTotalBytes {
            forget(finishedId)
        }
    }

    /// Marks stream `id` finished at `now` (its retention starts).
    mutating func finish(_ id: String, now: Duration) {
        guard streams[id]?.finishedAt == nil else { return }
        streams[id]?.finishedAt = now
    }

    /// The events of `id` after event `after` (0: all), as of `now`.
    mutating func read(_ id: String, after: Int64, now: Duration) -> Read {
        expire(now: now)
        guard let stream = streams[id] else { return gone.contains(id) ? .expired : .notFound }
        let newest = Int64(stream.events.count)
        guard after <= newest else { return .beyondEnd(newest: newest) }
        let start = Int(max(0, after))
        return .events(Array(stream.events[start...]), finished: stream.finishedAt != nil)
    }

    /// Whether `id` has events after `after`, has finished, or is gone: a waiting reader wakes.
    func hasNews(_ id: String, after: Int64) -> Bool {
        guard let stream = streams[id] else { return true }
        return Int64(stream.events.count) > after || stream.finishedAt != nil
    }

    /// Drops finished streams whose retention has passed (exactly `retention` after finishing
    /// is still kept).
    mutating func expire(now: Duration) {
        let retention = limits.retention
        for (id, stream) in streams {
            if let finishedAt = stream.finishedAt, now - finishedAt > retention { forget(id) }
        }
    }

    private mutating func forget(_ id: String) {
        totalBytes -= streams.removeValue(forKey: id)?.bytes ?? 0
        guard limits.rememberedGoneIds > 0, gone.insert(id).inserted else { return }
        goneOrder.append(id)
        if goneOrder.count > limits.rememberedGoneIds {
            gone.remove(goneOrder.removeFirst())
        }
    }
}
