/// An incremental HTTP/1.1 response parser for a client (RFC 9112): bytes in, the final head
/// and body pieces out. The head is read by the shared ``HTTPHeadDecoder`` (field-line syntax,
/// bounds: ``maximumHeadBytes`` and ``maximumFieldCount``), the framing by ``HTTPBodyFraming``,
/// a chunked body by ``HTTPChunkedDecoder`` (the request parser's too); what only a response has
/// is here: the status line (HTTP/1.x, a status code of three digits from 100), interim 1xx heads
/// skipped (but a 101, which none of its requests asked for, fails), no body after `HEAD`, a 204
/// or a 304, a body framed by a final chunked coding, by Content-Length (the same length repeated
/// is one) or by the connection's end, and a connection that must close after a head with both
/// framing fields (``connectionMustClose``). Received body bytes are handed on as they arrive, so
/// the buffer never holds more than one head.
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

    /// The largest head (status line and fields, with the CRLF CRLF that ends it), and the
    /// largest trailer section.
    public let maximumHeadBytes: Int
    /// The most header fields a response may have.
    public static let maximumFieldCount = 256
    /// The longest chunk-size line (size and extensions).
    public static let maximumChunkLine = HTTPChunkedDecoder.maximumSizeLine
    private let requestWasHead: Bool
    private var state = State.head
    private var buffer: [UInt8] = []
    private var headDecoder: HTTPHeadDecoder<StatusLine>

    /// A parser for the response to a request; `requestWasHead` when its method was `HEAD`.
    public init(requestWasHead: Bool = false, maximumHeadBytes: Int = 64 << 10) {
        self.requestWasHead = requestWasHead
        self.maximumHeadBytes = maximumHeadBytes
        self.headDecoder = HTTPHeadDecoder(
            maximumHeadBytes: maximumHeadBytes, maximumFieldCount: Self.maximumFieldCount)
    }

    /// Whether the connection must not carry another request after this response, whatever its
    /// `Connection` field says: its head had both `Transfer-Encoding` and `Content-Length`, which
    /// RFC 9112 §6.3 asks a client to treat as an error, as a sign of a smuggling attempt or a
    /// broken intermediary. The response is still read by its codings (the codings win) and
    /// handed on; the client closes the connection after it instead of reusing it.
    public private(set) var connectionMustClose = false

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
            let status: Int
            let headers: HTTPHeaders
            do throws(HTTPHeadError) {
                guard let decoded = try headDecoder.decode(&buffer) else { return false }
                status = decoded.startLine.status
                headers = decoded.headers
            } catch {
                throw Self.failure(error)
            }
            // RFC 9110 §15.2.2: a 101 answers only a request that asked to upgrade, and this parser
            // reads the answers to requests that did not (the WebSocket client reads its 101 with
            // ``WebSocketHandshake``): the bytes after it are no longer HTTP/1.1, so it fails.
            if status == 101 {
                throw ParseError(
                    "the server switched protocols (101) though the request did not ask to upgrade")
            }
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
    private mutating func bodyFraming(status: Int, headers: HTTPHeaders) throws(ParseError) -> State {
        if requestWasHead || status == 204 || status == 304 { return .done }
        let framing: HTTPBodyFraming
        do {
            framing = try HTTPBodyFraming(headers, lengthLists: true)
        } catch {
            throw Self.failure(error)
        }
        switch framing {
        case .none:
            return .untilClose
        case .length(let length):
            return length == 0 ? .done : .fixedBody(remaining: length)
        case .codings(let codings, let withLength):
            // RFC 9112 §6.3: with a Content-Length too the message is suspect: read by its codings,
            // but its connection is not reused.
            if withLength { connectionMustClose = true }
            // RFC 9112 §6.3: the codings override a Content-Length; a final coding other than
            // chunked is read to the end. Empty list elements do not count (RFC 9110 §5.6.1).
            return codings.last(where: { !$0.isEmpty }) == "chunked"
                ? .chunked(HTTPChunkedDecoder(maximumTrailerBytes: maximumHeadBytes)) : .untilClose
        }
    }

    /// The error a head fault is reported as.
    private static func failure(_ error: HTTPHeadError) -> ParseError {
        switch error {
        case .tooLarge(let limit): ParseError("the response head is longer than \(limit) bytes")
        case .tooManyFields(let limit): ParseError("the response head has more than \(limit) header fields")
        case .malformed(let reason), .versionNotSupported(let reason): ParseError(reason)
        }
    }
}

extension HTTPResponseParser {
    /// `HTTP-version SP status-code [SP reason-phrase]` (RFC 9112 §4): HTTP/1.0 or HTTP/1.1, a
    /// status code of three ASCII digits from 100; the reason phrase is kept only for messages
    /// (the WebSocket handshake names a status line that did not switch protocols).
    struct StatusLine: HTTPStartLine {
        /// 0 for HTTP/1.0, 1 for HTTP/1.1.
        var minorVersion: Int
        var status: Int
        /// The reason phrase, at most 80 bytes of it.
        var reason: String

        /// The line as received (the reason phrase shortened to 80 bytes).
        var text: String {
            "HTTP/1.\(minorVersion) \(status)" + (reason.isEmpty ? "" : " \(reason)")
        }

        static let message = "response"

        /// A response starts with `HTTP/`.
        static func refuseEarly(_ buffer: [UInt8]) throws(HTTPHeadError) {
            let prefix = "HTTP/".utf8
            guard buffer.prefix(prefix.count).elementsEqual(prefix.prefix(buffer.count)) else {
                throw notHTTP(String(decoding: buffer.prefix(80), as: UTF8.self))
            }
        }

        static func parse(_ bytes: UnsafeBufferPointer<UInt8>) throws(HTTPHeadError) -> StatusLine {
            let version = "HTTP/1.1".utf8.count
            guard bytes.count > version, bytes[version] == 0x20,
                bytes[..<version].elementsEqual("HTTP/1.1".utf8) || bytes[..<version].elementsEqual("HTTP/1.0".utf8)
            else { throw notHTTP(String(decoding: bytes.prefix(80), as: UTF8.self)) }
            let codeStart = version + 1
            var codeEnd = codeStart
            while codeEnd < bytes.count, bytes[codeEnd] != 0x20 { codeEnd += 1 }
            let code = UnsafeBufferPointer(rebasing: bytes[codeStart..<codeEnd])
            guard code.count == 3, code.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), code[0] != 0x30 else {
                let shown = String(decoding: code.prefix(20), as: UTF8.self)
                throw .malformed("the status code \(shown.debugDescription) is not 3 digits")
            }
            let reasonRange = min(codeEnd + 1, bytes.count)..<min(codeEnd + 81, bytes.count)
            return StatusLine(
                minorVersion: bytes[version - 1] == UInt8(ascii: "1") ? 1 : 0,
                status: code.reduce(0) { $0 * 10 + Int($1 - 0x30) },
                reason: String(decoding: UnsafeBufferPointer(rebasing: bytes[reasonRange]), as: UTF8.self))
        }

        private static func notHTTP(_ line: String) -> HTTPHeadError {
            .malformed("the status line \(line.debugDescription) is not HTTP/1.x")
        }
    }
}
