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
/// - Text is decoded as UTF-8 with replacement characters, per complete line, so a multi-byte
///   character split across chunks decodes correctly.
///
/// Work is linear in the input: every byte is scanned once and copied at most twice
/// (``statistics`` counts both, so tests can check the work rather than the time).
public struct EventStreamParser: Sendable {
    /// Counters of the work done so far.
    public struct Statistics: Sendable, Hashable {
        /// Bytes examined while looking for line ends.
        public var bytesScanned = 0
        /// Bytes copied into the parser's line and data buffers.
        public var bytesCopied = 0
        /// Events dispatched.
        public var eventsDispatched = 0
        /// Comment lines seen (heartbeats are comments).
        public var comments = 0
    }

    /// The last event ID string: what a reconnection sends as `Last-Event-ID`. It changes
    /// only when an event is dispatched (a blank line), so an unterminated event never counts.
    public private(set) var lastEventId = ""
    /// The reconnection time in milliseconds set by the last valid `retry` field.
    public private(set) var reconnectionTime: Int?
    /// Work counters.
    public private(set) var statistics = Statistics()

    private var lineBuffer: [UInt8] = []
    private var dataBuffer: [UInt8] = []
    private var eventType = ""
    private var idBuffer = ""
    private var skipLeadingLF = false
    private var bomBytesMatched = 0
    private var bomDone = false

    /// A parser at the start of a stream.
    public init() {}

    /// Feeds the next chunk and returns the events it completes.
    public mutating func feed(_ chunk: some Collection<UInt8>) -> [ServerSentEvent] {
        var events: [ServerSentEvent] = []
        feed(chunk) { events.append($0) }
        return events
    }

    /// Feeds the next chunk, handing each completed event to `dispatch` in order.
    public mutating func feed(_ chunk: some Collection<UInt8>, dispatch: (ServerSentEvent) -> Void) {
        let handled: Void? = chunk.withContiguousStorageIfAvailable { buffer in
            feedBuffer(buffer, dispatch: dispatch)
        }
        if handled == nil {
            let bytes = Array(chunk)
            bytes.withUnsafeBufferPointer { feedBuffer($0, dispatch: dispatch) }
        }
    }

    /// Ends the stream: a partial line and an event without its blank line are discarded.
    /// ``lastEventId`` and ``reconnectionTime`` are kept, and the parser is ready for the
    /// next connection's stream (which may start with its own BOM).
    public mutating func finish() {
        lineBuffer.removeAll()
        dataBuffer.removeAll()
        eventType = ""
        idBuffer = lastEventId
        skipLeadingLF = false
        bomBytesMatched = 0
        bomDone = false
    }

    // MARK: Bytes to lines

    private mutating func feedBuffer(_ buffer: UnsafeBufferPointer<UInt8>, dispatch: (ServerSentEvent) -> Void) {
        var start = 0
        if !bomDone {
            start = consumeBOM(buffer)
            if !bomDone { return }
        }
        if skipLeadingLF, start < buffer.count {
            skipLeadingLF = false
            if buffer[start] == 0x0A { start += 1 }
        }
        var position = start
        while position < buffer.count {
            let end = Self.findLineEnd(buffer, from: position)
            statistics.bytesScanned += (end < buffer.count ? end + 1 : end) - position
            guard end < buffer.count else {
                let rest = UnsafeBufferPointer(rebasing: buffer[position..<buffer.count])
                lineBuffer.append(contentsOf: rest)
                statistics.bytesCopied += rest.count
                return
            }
            if lineBuffer.isEmpty {
                processLine(UnsafeBufferPointer(rebasing: buffer[position..<end]), dispatch: dispatch)
            } else {
                let piece = UnsafeBufferPointer(rebasing: buffer[position..<end])
                lineBuffer.append(contentsOf: piece)
                statistics.bytesCopied += piece.count
                let line = lineBuffer
                lineBuffer.removeAll(keepingCapacity: true)
                line.withUnsafeBufferPointer { processLine($0, dispatch: dispatch) }
            }
            position = end + 1
            if buffer[end] == 0x0D {
                if position < buffer.count {
                    if buffer[position] == 0x0A { position += 1 }
                } else {
                    skipLeadingLF = true
                }
            }
        }
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
                return position
            }
            bomBytesMatched += 1
            position += 1
        }
        if bomBytesMatched == 3 { bomDone = true }
        return position
    }

    /// The index of the first CR or LF at or after `start`, or `buffer.count`.
    /// Looks at eight bytes at a time (SWAR), then finishes byte by byte.
    @inline(__always)
    private static func findLineEnd(_ buffer: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
        var index = start
        let count = buffer.count
        if let base = buffer.baseAddress {
            let raw = UnsafeRawPointer(base)
            let ones: UInt64 = 0x0101_0101_0101_0101
            let highs: UInt64 = 0x8080_8080_8080_8080
            let lineFeeds = ones &* 0x0A
            let carriageReturns = ones &* 0x0D
            while index + 8 <= count {
                let word = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: index, as: UInt64.self))
                let lf = word ^ lineFeeds
                let cr = word ^ carriageReturns
                let found = ((lf &- ones) & ~lf | (cr &- ones) & ~cr) & highs
                if found != 0 {
                    return index + found.trailingZeroBitCount / 8
                }
                index += 8
            }
        }
        while index < count {
            let byte = buffer[index]
            if byte == 0x0A || byte == 0x0D { return index }
            index += 1
        }
        return count
    }

    // MARK: Lines to events

    private mutating func processLine(_ line: UnsafeBufferPointer<UInt8>, dispatch: (ServerSentEvent) -> Void) {
        if line.isEmpty {
            dispatchEvent(dispatch)
            return
        }
        if line[0] == UInt8(ascii: ":") {
            statistics.comments += 1
            return
        }
        var colon = 0
        while colon < line.count, line[colon] != UInt8(ascii: ":") { colon += 1 }
        let name = UnsafeBufferPointer(rebasing: line[0..<colon])
        var valueStart = colon < line.count ? colon + 1 : line.count
        if valueStart < line.count, line[valueStart] == UInt8(ascii: " ") { valueStart += 1 }
        let value = UnsafeBufferPointer(rebasing: line[valueStart..<line.count])
        switch name.count {
        case 4 where Self.equals(name, "data"):
            dataBuffer.append(contentsOf: value)
            dataBuffer.append(0x0A)
            statistics.bytesCopied += value.count + 1
        case 5 where Self.equals(name, "event"):
            eventType = String(decoding: value, as: UTF8.self)
        case 2 where Self.equals(name, "id"):
            if !value.contains(0) {
                idBuffer = String(decoding: value, as: UTF8.self)
            }
        case 5 where Self.equals(name, "retry"):
            if !value.isEmpty, value.allSatisfy({ $0 &- UInt8(ascii: "0") < 10 }),
                let milliseconds = Int(String(decoding: value, as: UTF8.self))
            {
                reconnectionTime = milliseconds
            }
        default:
            break
        }
    }

    private mutating func dispatchEvent(_ dispatch: (ServerSentEvent) -> Void) {
        lastEventId = idBuffer
        guard !dataBuffer.isEmpty else {
            eventType = ""
            return
        }
        dataBuffer.removeLast()  // the LF after the last data line
        let data = String(decoding: dataBuffer, as: UTF8.self)
        dataBuffer.removeAll(keepingCapacity: dataBuffer.capacity <= 1 << 16)
        let type = eventType.isEmpty ? "message" : eventType
        eventType = ""
        statistics.eventsDispatched += 1
        dispatch(ServerSentEvent(type: type, data: data, lastEventId: lastEventId))
    }

    @inline(__always)
    private static func equals(_ bytes: UnsafeBufferPointer<UInt8>, _ name: StaticString) -> Bool {
        let expected = UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount)
        return bytes.elementsEqual(expected)
    }
}
