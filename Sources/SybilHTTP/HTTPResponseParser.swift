/// An incremental HTTP/1.1 response parser for a client (RFC 9112): bytes in, the final head
/// and body pieces out. Interim 1xx heads are skipped; the body is framed by chunked coding,
/// by Content-Length, or by the connection's end; a response to `HEAD`, a 204 and a 304 have
/// none. Everything is range-checked: the head and the trailers against
/// ``maximumHeadBytes``, a chunk-size line against 1 KiB (``HTTPChunkedDecoder``, the
/// request parser's too), lengths against overflow. Received
/// body bytes are handed on as they arrive, so the buffer never holds more than one head.
public struct HTTPResponseParser: Sendable {
    /// What the parser found.
    public enum Event: Sendable, Hashable {
        /// The final response head.
        case head(status: Int, headers: HTTPHeaders)
        /// A piece of the body.
        case body([UInt8])
        /// The response is complete.
        case end
    }

    /// Why a response cannot be read.
    public struct ParseError: Error, Sendable, Hashable, CustomStringConvertible {
        /// What was wrong, naming the field.
        public var description: String

        init(_ description: String) {
            self.description = description
        }
    }

    private enum State: Sendable {
        case head
        case fixedBody(remaining: Int)
        case untilClose
        case chunked(HTTPChunkedDecoder)
        case done
    }

    /// The largest head (status line and fields), and the largest trailer section.
    public let maximumHeadBytes: Int
    /// The longest chunk-size line (size and extensions).
    public static let maximumChunkLine = HTTPChunkedDecoder.maximumSizeLine
    private let requestWasHead: Bool
    private var state = State.head
    private var buffer: [UInt8] = []
    private var headScanned = 0

    /// A parser for the response to a request; `requestWasHead` when its method was `HEAD`.
    public init(requestWasHead: Bool = false, maximumHeadBytes: Int = 64 << 10) {
        self.requestWasHead = requestWasHead
        self.maximumHeadBytes = maximumHeadBytes
    }

    /// Whether the response is complete.
    public var isComplete: Bool {
        if case .done = state { return true }
        return false
    }

    /// Feeds received bytes and appends what they complete to `events`. When the bytes hold an
    /// error, what came before it is appended first and then the error thrown, so the events
    /// are the same however the bytes were split. Bytes after the end of the response are
    /// ignored (the client sent `Connection: close`).
    public mutating func feed(_ bytes: some Collection<UInt8>, into events: inout [Event]) throws(ParseError) {
        if case .done = state { return }
        if buffer.isEmpty, handOut(bytes, into: &events) { return }
        buffer.append(contentsOf: bytes)
        while try step(&events) {}
    }

    /// Hands body bytes that arrive while the buffer is empty straight on (a read of an array
    /// is handed on as that array, shared rather than copied into the buffer and out again);
    /// whether it did. A chunked body and a head still go through the buffer.
    private mutating func handOut(_ bytes: some Collection<UInt8>, into events: inout [Event]) -> Bool {
        switch state {
        case .untilClose:
            if !bytes.isEmpty { events.append(.body(Self.array(bytes))) }
            return true
        case .fixedBody(let remaining):
            let count = bytes.count
            guard count > 0 else { return true }
            if count < remaining {
                events.append(.body(Self.array(bytes)))
                state = .fixedBody(remaining: remaining - count)
                return true
            }
            // The rest of the body; bytes after its end are ignored.
            events.append(.body(count == remaining ? Self.array(bytes) : Array(bytes.prefix(remaining))))
            state = .done
            events.append(.end)
            return true
        default:
            return false
        }
    }

    @inline(__always)
    private static func array(_ bytes: some Collection<UInt8>) -> [UInt8] {
        if let array = bytes as? [UInt8] { return array }
        return Array(bytes)
    }

    /// The connection ended: appends the end of a body read to the end of the connection, and
    /// throws when the response was cut short.
    public mutating func finish(into events: inout [Event]) throws(ParseError) {
        switch state {
        case .done:
            return
        case .untilClose:
            state = .done
            events.append(.end)
        case .head:
            throw ParseError("the connection closed before the response head was complete")
        default:
            throw ParseError("the connection closed before the response body was complete")
        }
    }

    private mutating func step(_ events: inout [Event]) throws(ParseError) -> Bool {
        switch state {
        case .head:
            guard let end = Self.headEnd(in: buffer, from: headScanned) else {
                headScanned = max(0, buffer.count - 3)
                if buffer.count > maximumHeadBytes { throw Self.headTooLarge(maximumHeadBytes) }
                return false
            }
            headScanned = 0
            guard end + 4 <= maximumHeadBytes else { throw Self.headTooLarge(maximumHeadBytes) }
            let (status, headers) = try Self.parseHead(buffer[..<end])
            buffer.removeSubrange(..<(end + 4))
            if (100...199).contains(status) { return true }  // 100 Continue, 103 Early Hints
            // The framing is checked before the head is handed on: a head whose body cannot be
            // framed is a malformed response, not a response with a failing body.
            let body = try bodyFraming(status: status, headers: headers)
            events.append(.head(status: status, headers: headers))
            state = body
            if case .done = body { events.append(.end) }
            return true
        case .fixedBody(let remaining):
            guard !buffer.isEmpty else { return false }
            let count = min(remaining, buffer.count)
            events.append(.body(Array(buffer[..<count])))
            buffer.removeSubrange(..<count)
            state = count == remaining ? .done : .fixedBody(remaining: remaining - count)
            if count == remaining { events.append(.end) }
            return true
        case .untilClose:
            guard !buffer.isEmpty else { return false }
            events.append(.body(buffer))
            buffer.removeAll(keepingCapacity: true)
            return false
        case .chunked(var decoder):
            let done: Bool
            do {
                done = try decoder.decode(&buffer) { events.append(.body($0)) }
            } catch {
                throw ParseError(error.description)
            }
            guard done else {
                state = .chunked(decoder)
                return false
            }
            state = .done
            events.append(.end)
            return true
        case .done:
            return false
        }
    }

    /// The state the body starts in: `.done` when there is none.
    private func bodyFraming(status: Int, headers: HTTPHeaders) throws(ParseError) -> State {
        if requestWasHead || status == 204 || status == 304 { return .done }
        if let coding = headers["Transfer-Encoding"] {
            let codings = coding.split(separator: ",").map { HTTPHeaders.trimmed($0).lowercased() }
            // RFC 9112 §6.3: a final coding other than chunked is read to the end.
            return codings.last == "chunked"
                ? .chunked(HTTPChunkedDecoder(maximumTrailerBytes: maximumHeadBytes)) : .untilClose
        }
        let lengths = headers.fields.filter { HTTPHeaders.sameName($0.name, "Content-Length") }.map(\.value)
        guard let first = lengths.first else { return .untilClose }
        let values = Set(lengths.flatMap { $0.split(separator: ",").map { HTTPHeaders.trimmed($0) } })
        guard values.count == 1, let text = values.first, !text.isEmpty, text.count <= 18,
            text.allSatisfy({ $0.isASCII && $0.isNumber }), let length = Int(text)
        else { throw ParseError("Content-Length \(first.debugDescription) is not one valid length") }
        return length == 0 ? .done : .fixedBody(remaining: length)
    }

    private static func headTooLarge(_ limit: Int) -> ParseError {
        ParseError("the response head is longer than \(limit) bytes")
    }

    /// The index of the CRLFCRLF that ends a head, searching from `start`.
    private static func headEnd(in buffer: [UInt8], from start: Int) -> Int? {
        guard buffer.count >= 4 else { return nil }
        var index = max(0, start)
        while index + 3 < buffer.count {
            if buffer[index] == 0x0D, buffer[index + 1] == 0x0A, buffer[index + 2] == 0x0D, buffer[index + 3] == 0x0A {
                return index
            }
            index += 1
        }
        return nil
    }

    /// `HTTP/1.x SSS reason` and the field lines.
    private static func parseHead(_ bytes: ArraySlice<UInt8>) throws(ParseError) -> (Int, HTTPHeaders) {
        guard !bytes.contains(0) else { throw ParseError("a NUL byte in the response head") }
        let text = String(decoding: bytes, as: UTF8.self)
        var lines = text.split(separator: "\r\n", omittingEmptySubsequences: false)[...]
        let statusLine = lines.removeFirst()
        let parts = statusLine.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count >= 2, parts[0] == "HTTP/1.1" || parts[0] == "HTTP/1.0" else {
            throw ParseError("the status line \(String(statusLine.prefix(80)).debugDescription) is not HTTP/1.x")
        }
        guard parts[1].count == 3, parts[1].allSatisfy({ $0.isASCII && $0.isNumber }), let status = Int(parts[1]),
            status >= 100
        else { throw ParseError("the status code \(String(parts[1].prefix(20)).debugDescription) is not 3 digits") }
        var headers = HTTPHeaders()
        for line in lines {
            guard !line.contains("\n"), !line.contains("\r") else { throw ParseError("a bare CR or LF in the head") }
            guard let first = line.first, first != " ", first != "\t" else {
                throw ParseError("a header line starts with white space (folded lines are not allowed)")
            }
            guard let colon = line.firstIndex(of: ":") else {
                throw ParseError("the header line \(String(line.prefix(80)).debugDescription) has no colon")
            }
            let name = line[..<colon]
            guard name.utf8.allSatisfy(HTTPHeaders.isTokenByte) else {
                throw ParseError("the header name \(String(name.prefix(80)).debugDescription) is not a token")
            }
            headers.append(String(name), HTTPHeaders.trimmed(line[line.index(after: colon)...]))
        }
        return (status, headers)
    }
}
