#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// An incremental `text/event-stream` parser following the WHATWG HTML rules
/// (§9.2.6 "Interpreting an event stream"): bytes in, events out.
///
/// - One leading UTF-8 BOM is stripped, even when split across chunks.
/// - Lines end in CR, LF or CRLF; a CRLF split across two chunks is one line end.
/// - Lines starting with `:` are comments. A line without `:` is a field with an empty value.
///   One space after the colon is removed. Unknown fields are ignored.
/// - `data` lines are joined with LF; `event` sets the type; `id` sets the last event ID
///   unless it contains U+0000; `retry` sets the reconnection time only when all ASCII digits.
/// - Events are dispatched only on a blank line; ``finish()`` discards an unterminated event.
/// - Data is kept as bytes and decoded as UTF-8 with replacement when read
///   (``ServerSentEvent/data``), so a multi-byte character split across chunks decodes
///   correctly; `event` and `id` values are decoded per complete line.
///
/// Bounded against any server (``Limits``): a line that is not `data` may hold at most
/// ``Limits/maximumLineBytes``, and an event's data at most ``Limits/maximumEventBytes``;
/// past either, ``feed(_:dispatch:)`` throws ``LimitExceeded`` and the parser refuses all
/// further input, so an endless line costs at most the limit, never memory without end.
///
/// Work is linear in the input: line ends are found with `memchr` and every byte is scanned
/// for each of CR and LF at most once; a `data` value is copied once into the event (a line
/// split across chunks is streamed into the event as it arrives), other partial lines at
/// most twice. ``statistics`` counts this, so tests check the work rather than the time.
public struct EventStreamParser: Sendable {
    /// Counters of the work done so far.
    public struct Statistics: Sendable, Hashable {
        /// Bytes examined while searching for line ends: each byte at most once for CR and
        /// once for LF, so at most twice the input.
        public var bytesScanned = 0
        /// Bytes copied into the parser's line and data buffers.
        public var bytesCopied = 0
        /// Events dispatched.
        public var eventsDispatched = 0
        /// Comment lines seen (heartbeats are comments).
        public var comments = 0
    }

    /// What the bytes before the next line end belong to, when a line spans chunks.
    private enum LineState: Sendable {
        /// At the start of a line, or in a line held in `lineBuffer`.
        case buffered
        /// In the value of a `data` line, streamed straight into `dataBuffer`. `skipSpace`
        /// when the colon was the last byte seen, so one leading space is still to drop.
        case dataValue(skipSpace: Bool)
    }

    /// The most a peer may make the parser hold.
    public struct Limits: Sendable, Hashable {
        /// The longest line that is not a `data` line (`event`, `id`, `retry`, comments,
        /// unknown fields): 64 KiB by default.
        public var maximumLineBytes: Int
        /// The most data one event may carry (its `data` lines joined): 16 MiB by default.
        public var maximumEventBytes: Int

        /// Limits; the defaults hold any chat chunk or workspace event Sybil sends.
        public init(maximumLineBytes: Int = 64 << 10, maximumEventBytes: Int = 16 << 20) {
            precondition(maximumLineBytes > 0 && maximumEventBytes > 0, "limits must be positive")
            self.maximumLineBytes = maximumLineBytes
            self.maximumEventBytes = maximumEventBytes
        }
    }

    /// The stream went past a limit: it is refused, not read further.
    public enum LimitExceeded: Error, Sendable, Hashable, CustomStringConvertible {
        /// A line other than `data` grew past this many bytes without ending.
        case lineTooLong(limit: Int)
        /// An event's data grew past this many bytes.
        case eventTooLarge(limit: Int)

        /// One sentence naming the limit.
        public var description: String {
            switch self {
            case .lineTooLong(let limit): "a line of the event stream is longer than \(limit) bytes"
            case .eventTooLarge(let limit): "an event of the event stream is larger than \(limit) bytes"
            }
        }
    }

    /// The bounds this parser enforces.
    public let limits: Limits
    /// The limit the stream went past; the parser refuses further input once it is set.
    public private(set) var failure: LimitExceeded?

    /// The last event ID string: what a reconnection sends as `Last-Event-ID`. It changes
    /// only when an event is dispatched (a blank line), so an unterminated event never counts.
    public private(set) var lastEventId = ""
    /// The reconnection time in milliseconds set by the last valid `retry` field.
    public private(set) var reconnectionTime: Int?
    /// Work counters.
    public private(set) var statistics = Statistics()

    private var lineBuffer: [UInt8] = []
    private var dataBuffer: [UInt8] = []
    /// The array the last event's data was handed out in. A consumer that does not keep the
    /// event leaves it uniquely referenced again, so the next event's data reuses it in place
    /// instead of allocating and freeing an array per event; a kept event keeps it, and the
    /// next event gets a new one (copy-on-write).
    private var eventData: [UInt8] = []
    /// The event's only `data` value so far, when it lies whole in the chunk being fed: where
    /// it starts in that chunk and its length (`count` is -1 when there is none). It is
    /// copied once, straight into the dispatched event; a second `data` line, or the end of the
    /// chunk, moves it into `dataBuffer` first. The address is kept as an integer (the parser
    /// stays `Sendable`); it never outlives the `feed` call that lends the chunk.
    private var pendingData: (address: Int, count: Int) = (0, -1)
    private var lineState = LineState.buffered
    private var eventType = ""
    /// The value of the last `id` field since the last blank line, if any: what the next
    /// blank line makes ``lastEventId`` (moved, not copied).
    private var pendingId: String?
    private var skipLeadingLF = false
    private var bomBytesMatched = 0
    private var bomDone = false

    /// Data buffers up to this capacity are kept between events; larger ones are released.
    private static let reusedDataCapacity = 4 << 20

    /// A parser at the start of a stream, bounded by `limits`.
    public init(limits: Limits = Limits()) {
        self.limits = limits
    }

    /// Feeds the next chunk and returns the events it completes; throws when the stream went
    /// past a limit (the events completed before that point are lost with it).
    public mutating func feed(_ chunk: some Collection<UInt8>) throws(LimitExceeded) -> [ServerSentEvent] {
        var events: [ServerSentEvent] = []
        try feed(chunk) { events.append($0) }
        return events
    }

    /// Feeds the next chunk, handing each completed event to `dispatch` in order; throws when
    /// the stream went past a limit (the events before that point were dispatched).
    public mutating func feed(_ chunk: some Collection<UInt8>, dispatch: (ServerSentEvent) -> Void)
        throws(LimitExceeded)
    {
        if let failure { throw failure }
        let handled: Void? = chunk.withContiguousStorageIfAvailable { buffer in
            feedBuffer(buffer, dispatch: dispatch)
        }
        if handled == nil {
            let bytes = Array(chunk)
            bytes.withUnsafeBufferPointer { feedBuffer($0, dispatch: dispatch) }
        }
        if let failure {
            lineBuffer = []
            dataBuffer = []
            eventData = []
            throw failure
        }
    }

    /// Ends the stream: a partial line and an event without its blank line are discarded.
    /// ``lastEventId`` and ``reconnectionTime`` are kept, and the parser is ready for the
    /// next connection's stream (which may start with its own BOM).
    public mutating func finish() {
        failure = nil
        lineBuffer.removeAll()
        dataBuffer.removeAll()
        eventData = []
        lineState = .buffered
        eventType = ""
        pendingId = nil
        skipLeadingLF = false
        bomBytesMatched = 0
        bomDone = false
    }

    // MARK: Bytes to lines

    private mutating func feedBuffer(_ buffer: UnsafeBufferPointer<UInt8>, dispatch: (ServerSentEvent) -> Void) {
        guard let base = buffer.baseAddress, !buffer.isEmpty else { return }
        // The chunk's bytes are only borrowed for this call: a pending data value moves into
        // the parser's own buffer before they go away.
        defer { if pendingData.count >= 0 { keepPendingData() } }
        var position = 0
        if !bomDone {
            position = consumeBOM(buffer)
            if !bomDone { return }
        }
        if skipLeadingLF, position < buffer.count {
            skipLeadingLF = false
            if buffer[position] == 0x0A { position += 1 }
        }
        var scanner = LineEndScanner(base: base, count: buffer.count)
        defer { statistics.bytesScanned += scanner.bytesExamined }
        if case .dataValue(let skipSpace) = lineState, position < buffer.count {
            if skipSpace, buffer[position] == UInt8(ascii: " ") { position += 1 }
            let end = scanner.lineEnd(from: position)
            appendData(UnsafeBufferPointer(rebasing: buffer[position..<end]))
            guard failure == nil else { return }
            guard end < buffer.count else {
                lineState = .dataValue(skipSpace: false)
                return
            }
            dataBuffer.append(0x0A)
            lineState = .buffered
            position = afterLineEnd(buffer, end)
        }
        while position < buffer.count, failure == nil {
            // A blank line (the end of every event) is seen at its first byte, without a search.
            let first = buffer[position]
            let end = first == 0x0A || first == 0x0D ? scanner.lineEndHere(position) : scanner.lineEnd(from: position)
            guard end < buffer.count else {
                holdPartialLine(UnsafeBufferPointer(rebasing: buffer[position..<buffer.count]))
                return
            }
            if lineBuffer.isEmpty {
                processLine(UnsafeBufferPointer(rebasing: buffer[position..<end]), inChunk: true, dispatch: dispatch)
            } else {
                let piece = UnsafeBufferPointer(rebasing: buffer[position..<end])
                lineBuffer.append(contentsOf: piece)
                statistics.bytesCopied += piece.count
                var line: [UInt8] = []
                swap(&line, &lineBuffer)
                line.withUnsafeBufferPointer { processLine($0, inChunk: false, dispatch: dispatch) }
                line.removeAll(keepingCapacity: true)
                swap(&line, &lineBuffer)
            }
            position = afterLineEnd(buffer, end)
        }
    }

    /// The position after the line end at `end`, swallowing the LF of a CRLF (or noting that
    /// it may start the next chunk).
    @inline(__always)
    private mutating func afterLineEnd(_ buffer: UnsafeBufferPointer<UInt8>, _ end: Int) -> Int {
        var position = end + 1
        if buffer[end] == 0x0D {
            if position < buffer.count {
                if buffer[position] == 0x0A { position += 1 }
            } else {
                skipLeadingLF = true
            }
        }
        return position
    }

    /// Keeps the start of a line whose end is in a later chunk. Once the line is known to be
    /// a `data` line, its value goes straight into the event's data instead.
    private mutating func holdPartialLine(_ piece: UnsafeBufferPointer<UInt8>) {
        if lineBuffer.isEmpty, piece.count >= 5, Self.hasDataPrefix(piece) {
            startStreamingData(value: UnsafeBufferPointer(rebasing: piece[5...]))
            return
        }
        if lineBuffer.count + piece.count > limits.maximumLineBytes, !Self.mayBeData(lineBuffer, piece) {
            failure = .lineTooLong(limit: limits.maximumLineBytes)
            return
        }
        lineBuffer.append(contentsOf: piece)
        statistics.bytesCopied += piece.count
        if lineBuffer.count >= 5, lineBuffer.count - piece.count < 5 {
            let isData = lineBuffer.withUnsafeBufferPointer { Self.hasDataPrefix($0) }
            if isData {
                let held = lineBuffer
                lineBuffer.removeAll(keepingCapacity: true)
                held.withUnsafeBufferPointer { startStreamingData(value: UnsafeBufferPointer(rebasing: $0[5...])) }
            }
        }
    }

    /// Switches to streaming a `data` value whose line end has not arrived yet.
    private mutating func startStreamingData(value: UnsafeBufferPointer<UInt8>) {
        guard !value.isEmpty else {
            lineState = .dataValue(skipSpace: true)
            return
        }
        let start = value[value.startIndex] == UInt8(ascii: " ") ? value.startIndex + 1 : value.startIndex
        appendData(UnsafeBufferPointer(rebasing: value[start...]))
        lineState = .dataValue(skipSpace: false)
    }

    /// Whether held bytes plus `piece` start a `data` line, or may still turn out to (a
    /// `data` line is bounded by the event limit instead).
    private static func mayBeData(_ held: [UInt8], _ piece: UnsafeBufferPointer<UInt8>) -> Bool {
        let known = Array((held + Array(piece.prefix(5))).prefix(5))
        return zip(known, Array("data:".utf8)).allSatisfy { $0 == $1 }
    }

    @inline(__always)
    private mutating func appendData(_ bytes: UnsafeBufferPointer<UInt8>) {
        if pendingData.count >= 0 { keepPendingData() }
        // An event's data is its lines plus one LF each: the LFs count toward the limit too.
        guard dataBuffer.count + bytes.count <= limits.maximumEventBytes else {
            failure = .eventTooLarge(limit: limits.maximumEventBytes)
            return
        }
        dataBuffer.append(contentsOf: bytes)
        statistics.bytesCopied += bytes.count
    }

    /// Moves the pending data value (and the LF that ends its line) into `dataBuffer`.
    private mutating func keepPendingData() {
        let pending = pendingBytes
        pendingData = (0, -1)
        dataBuffer.append(contentsOf: pending)
        dataBuffer.append(0x0A)
        statistics.bytesCopied += pending.count
    }

    /// The pending data value's bytes, in the chunk being fed.
    private var pendingBytes: UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(start: UnsafePointer(bitPattern: pendingData.address), count: pendingData.count)
    }

    @inline(__always)
    private static func hasDataPrefix(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        bytes.count >= 5 && bytes[0] == UInt8(ascii: "d") && bytes[1] == UInt8(ascii: "a")
            && bytes[2] == UInt8(ascii: "t") && bytes[3] == UInt8(ascii: "a") && bytes[4] == UInt8(ascii: ":")
    }

    /// Strips one leading EF BB BF; returns where the stream's content starts in `buffer`.
    private mutating func consumeBOM(_ buffer: UnsafeBufferPointer<UInt8>) -> Int {
        let bom: [UInt8] = [0xEF, 0xBB, 0xBF]
        var position = 0
        while bomBytesMatched < 3, position < buffer.count {
            if buffer[position] != bom[bomBytesMatched] {
                // Not a BOM: the bytes held back so far are ordinary content.
                bomDone = true
                let held = Array(bom[0..<bomBytesMatched])
                bomBytesMatched = 0
                lineBuffer.append(contentsOf: held)
                statistics.bytesCopied += held.count
                return position
            }
            bomBytesMatched += 1
            position += 1
        }
        if bomBytesMatched == 3 { bomDone = true }
        return position
    }

    // MARK: Lines to events

    /// Interprets one complete line; `inChunk` when the line lies in the chunk being fed (not
    /// in `lineBuffer`), so that a `data` value may be left there until the event is dispatched.
    private mutating func processLine(
        _ line: UnsafeBufferPointer<UInt8>, inChunk: Bool, dispatch: (ServerSentEvent) -> Void
    ) {
        if line.isEmpty {
            dispatchEvent(dispatch)
            return
        }
        if line.count > limits.maximumLineBytes, !Self.hasDataPrefix(line) {
            failure = .lineTooLong(limit: limits.maximumLineBytes)
            return
        }
        if line[0] == UInt8(ascii: ":") {
            statistics.comments += 1
            return
        }
        // `data:` and `id:` are nearly every line of a chat stream: known without a search.
        var colon = 0
        if Self.hasDataPrefix(line) {
            colon = 4
        } else if line.count >= 3, line[0] == UInt8(ascii: "i"), line[1] == UInt8(ascii: "d"),
            line[2] == UInt8(ascii: ":")
        {
            colon = 2
        } else {
            while colon < line.count, line[colon] != UInt8(ascii: ":") { colon += 1 }
        }
        let name = UnsafeBufferPointer(rebasing: line[0..<colon])
        var valueStart = colon < line.count ? colon + 1 : line.count
        if valueStart < line.count, line[valueStart] == UInt8(ascii: " ") { valueStart += 1 }
        let value = UnsafeBufferPointer(rebasing: line[valueStart..<line.count])
        switch Field(name) {
        case .data:
            if inChunk, pendingData.count < 0, dataBuffer.isEmpty {
                // The event's first data line: one copy, into the event, when it is dispatched.
                guard value.count <= limits.maximumEventBytes else {
                    failure = .eventTooLarge(limit: limits.maximumEventBytes)
                    return
                }
                pendingData = (Int(bitPattern: value.baseAddress), value.count)
                return
            }
            appendData(value)
            if failure == nil { dataBuffer.append(0x0A) }
        case .event:
            eventType = String(decoding: value, as: UTF8.self)
        case .id:
            if value.isEmpty || memchr(value.baseAddress!, 0, value.count) == nil {
                pendingId = String(decoding: value, as: UTF8.self)
            }
        case .retry:
            if !value.isEmpty, value.allSatisfy({ $0 &- UInt8(ascii: "0") < 10 }),
                let milliseconds = Int(String(decoding: value, as: UTF8.self))
            {
                reconnectionTime = milliseconds
            }
        case .unknown:
            break
        }
    }

    private mutating func dispatchEvent(_ dispatch: (ServerSentEvent) -> Void) {
        if let id = pendingId.take() { lastEventId = id }
        if pendingData.count >= 0 {
            // The event's one data line, still in the chunk: copied once, straight into it.
            let data = eventArray(copying: pendingBytes)
            pendingData = (0, -1)
            dispatchEvent(data: data, dispatch)
            return
        }
        guard !dataBuffer.isEmpty else {
            eventType = ""
            return
        }
        // One exact-size copy into the event, without the LF after the last data line; the
        // buffer keeps its capacity for the next event (up to a bound), so large events do not
        // regrow and fault in fresh pages each time.
        var joined: [UInt8] = []
        swap(&joined, &dataBuffer)
        let data = joined.withUnsafeBufferPointer { eventArray(copying: UnsafeBufferPointer(rebasing: $0.dropLast())) }
        joined.removeAll(keepingCapacity: joined.capacity <= Self.reusedDataCapacity)
        swap(&joined, &dataBuffer)
        dispatchEvent(data: data, dispatch)
    }

    /// `bytes` in an array for an event: the previous event's array refilled when it is not
    /// much larger than needed (a kept event then holds at most about twice its data), else a
    /// new one with a little room to spare.
    @inline(__always)
    private mutating func eventArray(copying bytes: UnsafeBufferPointer<UInt8>) -> [UInt8] {
        let capacity = eventData.capacity
        if bytes.count <= capacity, capacity <= 2 * bytes.count + 64, capacity <= Self.reusedDataCapacity {
            // In place when the last event was not kept (unique); else one exact-size copy.
            // Overwriting the common prefix and trimming or extending the rest costs a
            // fraction of emptying the array and appending everything.
            let common = min(eventData.count, bytes.count)
            if eventData.count > common { eventData.removeLast(eventData.count - common) }
            eventData.withUnsafeMutableBufferPointer { storage in
                _ = UnsafeMutableBufferPointer(rebasing: storage[..<common])
                    .update(fromContentsOf: UnsafeBufferPointer(rebasing: bytes[..<common]))
            }
            if bytes.count > common { eventData.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[common...])) }
        } else {
            let room = bytes.count + bytes.count / 8 + 16
            eventData = [UInt8](unsafeUninitializedCapacity: room) { storage, initialized in
                _ = storage.initialize(fromContentsOf: bytes)
                initialized = bytes.count
            }
        }
        return eventData
    }

    @inline(__always)
    private mutating func dispatchEvent(data: consuming [UInt8], _ dispatch: (ServerSentEvent) -> Void) {
        var type = ""
        swap(&type, &eventType)
        statistics.eventsDispatched += 1
        dispatch(ServerSentEvent(type: type.isEmpty ? "message" : type, dataBytes: data, lastEventId: lastEventId))
    }

    /// The field names the parser acts on.
    private enum Field {
        case data, event, id, retry, unknown

        @inline(__always)
        init(_ name: UnsafeBufferPointer<UInt8>) {
            // Compared byte by byte: these run once per line, where a library call would cost
            // more than the comparison.
            switch name.count {
            case 4 where name[0] == 0x64 && name[1] == 0x61 && name[2] == 0x74 && name[3] == 0x61:  // data
                self = .data
            case 2 where name[0] == 0x69 && name[1] == 0x64:  // id
                self = .id
            case 5 where name[0] == 0x65 && name[1] == 0x76 && name[2] == 0x65 && name[3] == 0x6E && name[4] == 0x74:
                self = .event
            case 5 where name[0] == 0x72 && name[1] == 0x65 && name[2] == 0x74 && name[3] == 0x72 && name[4] == 0x79:
                self = .retry
            default:
                self = .unknown
            }
        }
    }
}

/// Finds line ends (CR or LF) in one chunk with `memchr`, remembering the next CR and the next
/// LF so that each byte is searched at most once for each.
private struct LineEndScanner {
    let base: UnsafePointer<UInt8>
    let count: Int
    private var nextLF = -1
    private var nextCR = -1
    /// Bytes looked at by the searches so far.
    private(set) var bytesExamined = 0

    init(base: UnsafePointer<UInt8>, count: Int) {
        self.base = base
        self.count = count
    }

    /// The index of the first CR or LF at or after `start`, or `count` when there is none.
    @inline(__always)
    mutating func lineEnd(from start: Int) -> Int {
        if nextLF < start { nextLF = find(0x0A, from: start) }
        if nextCR < start { nextCR = find(0x0D, from: start) }
        return min(nextLF, nextCR)
    }

    /// `start`, known to hold a CR or LF, looked at directly.
    @inline(__always)
    mutating func lineEndHere(_ start: Int) -> Int {
        bytesExamined += 1
        return start
    }

    @inline(__always)
    private mutating func find(_ byte: Int32, from start: Int) -> Int {
        guard start < count else { return count }
        guard let hit = memchr(base + start, byte, count - start) else {
            bytesExamined += count - start
            return count
        }
        let index = UnsafeRawPointer(hit) - UnsafeRawPointer(base)
        bytesExamined += index + 1 - start
        return index
    }
}
