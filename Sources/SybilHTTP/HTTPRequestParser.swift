import Foundation

/// A request's start line and header fields.
public struct HTTPRequestHead: Sendable, Hashable {
    /// `GET`, `POST`, …
    public var method: String
    /// The request target, e.g. `/v1/chat/completions?x=1`; an absolute-form target
    /// (`http://host/v1/models`) is reduced to its origin form when parsed.
    public var target: String {
        didSet { path = Self.path(of: target) }
    }
    /// The path without the query: kept with the target, since every routing decision (auth,
    /// body limit, dispatch) reads it.
    public private(set) var path: String
    /// 0 for HTTP/1.0, 1 for HTTP/1.1.
    public var minorVersion: Int
    /// Header fields in order.
    public var headers: HTTPHeaders

    /// Creates a head.
    public init(method: String, target: String, minorVersion: Int, headers: HTTPHeaders) {
        self.method = method
        self.target = target
        self.path = Self.path(of: target)
        self.minorVersion = minorVersion
        self.headers = headers
    }

    /// Whether the connection stays open after this request (HTTP/1.1 unless `Connection:
    /// close`; HTTP/1.0 only with `Connection: keep-alive`).
    public var keepAlive: Bool {
        minorVersion == 1
            ? !headers.listContains("Connection", token: "close")
            : headers.listContains("Connection", token: "keep-alive")
    }

    /// `target` up to its first `?`.
    private static func path(of target: String) -> String {
        guard let query = target.utf8.firstIndex(of: UInt8(ascii: "?")) else { return target }
        return String(target[..<query])
    }
}

/// Why a request could not be read; each maps to the status the server answers with.
public enum HTTPParseError: Error, Sendable, Hashable, CustomStringConvertible {
    /// 400: malformed start line, header or chunk framing.
    case badRequest(String)
    /// 431: the head is larger than the limit.
    case headersTooLarge(limit: Int)
    /// 413: the body is larger than the route's limit.
    case bodyTooLarge(limit: Int)
    /// 501: a transfer coding other than chunked.
    case unsupportedTransferEncoding(String)
    /// 505: not HTTP/1.0 or HTTP/1.1.
    case versionNotSupported(String)

    /// The status to answer with.
    public var status: Int {
        switch self {
        case .badRequest: 400
        case .headersTooLarge: 431
        case .bodyTooLarge: 413
        case .unsupportedTransferEncoding: 501
        case .versionNotSupported: 505
        }
    }

    /// One sentence for the error body.
    public var description: String {
        switch self {
        case .badRequest(let reason): "Malformed request: \(reason)."
        case .headersTooLarge(let limit): "The request head is larger than \(limit) bytes."
        case .bodyTooLarge(let limit): "The request body is larger than \(limit) bytes."
        case .unsupportedTransferEncoding(let coding): "Transfer-Encoding \"\(coding)\" is not supported; use chunked."
        case .versionNotSupported(let version): "\(version) is not supported; use HTTP/1.1."
        }
    }
}

/// An incremental HTTP/1.1 request parser (RFC 9112): bytes in, heads and body pieces out,
/// one request after another on a kept-alive connection. Limits are checked as bytes arrive:
/// the head against `maximumHeadBytes` (431), the body against the limit the caller gives for
/// the head (413). Content-Length and chunked bodies; a request with both, or with differing
/// lengths, is refused (no request smuggling).
public struct HTTPRequestParser: Sendable {
    /// What the parser found.
    public enum Event: Sendable, Hashable {
        /// A request began.
        case head(HTTPRequestHead)
        /// A piece of its body.
        case body([UInt8])
        /// The request is complete.
        case end
    }

    private enum State: Sendable {
        case head
        case fixedBody(remaining: Int)
        case chunkSize
        case chunkData(remaining: Int)
        case chunkDataEnd
        case trailers
    }

    /// The largest request head (start line and fields).
    public let maximumHeadBytes: Int
    private let bodyLimit: @Sendable (HTTPRequestHead) -> Int
    private var state = State.head
    private var buffer: [UInt8] = []
    private var bodyReceived = 0
    private var currentLimit = 0
    /// How far the current head has been searched for its end already.
    private var headScanned = 0
    /// How far the partial line at the buffer's start (a chunk-size or trailer line) has been
    /// searched for its CRLF already, so a line arriving byte by byte is scanned once.
    private var lineScanned = 0
    /// Bytes of the current request's trailer section read so far.
    private var trailerBytes = 0
    /// The longest chunk-size line (size and extensions), in bytes.
    private static let maximumChunkLine = 1_024
    private static let chunkLineTooLong = HTTPParseError.badRequest("a chunk-size line is longer than 1024 bytes")

    /// A parser; `bodyLimit` gives the largest body for a request once its head is known.
    public init(maximumHeadBytes: Int = 16 << 10, bodyLimit: @escaping @Sendable (HTTPRequestHead) -> Int) {
        self.maximumHeadBytes = maximumHeadBytes
        self.bodyLimit = bodyLimit
    }

    /// Bytes received and not yet handed out as events (a partial head or line, or the part of
    /// one read beyond the current body piece): for the server's count of what it holds.
    public var bufferedByteCount: Int { buffer.count }

    /// Whether the parser is between requests (nothing of a next one received yet).
    public var isIdle: Bool {
        if case .head = state { return buffer.isEmpty }
        return false
    }

    /// Feeds received bytes; returns what they complete. When they also hold something
    /// malformed, the error is thrown and the events before it are lost: a server answering
    /// pipelined requests uses ``feed(_:into:)``.
    public mutating func feed(_ bytes: some Collection<UInt8>) throws(HTTPParseError) -> [Event] {
        var events: [Event] = []
        try feed(bytes, into: &events)
        return events
    }

    /// Feeds received bytes and appends what they complete to `events`; the events for the
    /// requests before a malformed one are appended before its error is thrown, so each
    /// request read is answered in order.
    public mutating func feed(_ bytes: some Collection<UInt8>, into events: inout [Event]) throws(HTTPParseError) {
        buffer.append(contentsOf: bytes)
        while try step(&events) {}
    }

    /// Advances once; returns whether it made progress.
    private mutating func step(_ events: inout [Event]) throws(HTTPParseError) -> Bool {
        switch state {
        case .head:
            guard let end = Self.headEnd(in: buffer, from: headScanned) else {
                // A head that can never become valid is refused now, not after the request
                // timeout: a bare LF, or a first byte that cannot start a method (a TLS
                // ClientHello starts with 0x16).
                try Self.refuseEarly(buffer, from: max(0, headScanned - 1))
                headScanned = max(0, buffer.count - 3)
                if buffer.count > maximumHeadBytes { throw .headersTooLarge(limit: maximumHeadBytes) }
                return false
            }
            headScanned = 0
            guard end + 4 <= maximumHeadBytes else { throw .headersTooLarge(limit: maximumHeadBytes) }
            let head = try buffer.withUnsafeBufferPointer { bytes throws(HTTPParseError) in
                try Self.parseHead(UnsafeBufferPointer(rebasing: bytes[..<end]))
            }
            buffer.removeSubrange(..<(end + 4))
            events.append(.head(head))
            try startBody(for: head, &events)
            return true
        case .fixedBody(let remaining):
            guard !buffer.isEmpty else { return false }
            let count = min(remaining, buffer.count)
            events.append(.body(Array(buffer[..<count])))
            buffer.removeSubrange(..<count)
            if count == remaining {
                finishRequest(&events)
            } else {
                state = .fixedBody(remaining: remaining - count)
            }
            return true
        case .chunkSize:
            // The same limit whether the line arrives whole or in pieces: a partial line is
            // refused once it is already longer (a CR at its end may still start its CRLF).
            guard let line = takeLine() else {
                if partialLineLength > Self.maximumChunkLine { throw Self.chunkLineTooLong }
                return false
            }
            guard line.count <= Self.maximumChunkLine else { throw Self.chunkLineTooLong }
            // chunk-size [ *( BWS ";" BWS ext-name [ BWS "=" BWS ext-value ] ) ]: extensions
            // are legal and ignored (RFC 9112 §7.1.1).
            guard !line.contains(where: { $0 < 0x20 && $0 != 0x09 || $0 == 0x7F }) else {
                throw .badRequest("a control character in a chunk-size line")
            }
            var sizeBytes = line[..<(line.firstIndex(of: UInt8(ascii: ";")) ?? line.endIndex)]
            while let last = sizeBytes.last, last == 0x20 || last == 0x09 { sizeBytes = sizeBytes.dropLast() }
            let sizeText = String(decoding: sizeBytes, as: UTF8.self)
            guard !sizeText.isEmpty, sizeText.count <= 15, sizeText.allSatisfy(\.isHexDigit),
                let size = Int(sizeText, radix: 16)
            else { throw .badRequest("invalid chunk size \(sizeText.debugDescription)") }
            if size == 0 {
                state = .trailers
            } else {
                bodyReceived += size
                guard bodyReceived <= currentLimit else { throw .bodyTooLarge(limit: currentLimit) }
                state = .chunkData(remaining: size)
            }
            return true
        case .chunkData(let remaining):
            guard !buffer.isEmpty else { return false }
            let count = min(remaining, buffer.count)
            events.append(.body(Array(buffer[..<count])))
            buffer.removeSubrange(..<count)
            state = count == remaining ? .chunkDataEnd : .chunkData(remaining: remaining - count)
            return true
        case .chunkDataEnd:
            guard buffer.count >= 2 else { return false }
            guard buffer[0] == 0x0D, buffer[1] == 0x0A else { throw .badRequest("chunk data is not followed by CRLF") }
            buffer.removeSubrange(..<2)
            state = .chunkSize
            return true
        case .trailers:
            // The trailer section is bounded like a head, by its total size (each line with its
            // CRLF), whether it arrives whole or in pieces.
            guard let line = takeLine() else {
                let partial = partialLineLength
                if partial > 0, trailerBytes + partial + 2 > maximumHeadBytes {
                    throw .headersTooLarge(limit: maximumHeadBytes)
                }
                return false
            }
            if line.isEmpty {
                finishRequest(&events)
            } else {
                trailerBytes += line.count + 2
                guard trailerBytes <= maximumHeadBytes else { throw .headersTooLarge(limit: maximumHeadBytes) }
                try Self.checkTrailer(line)
            }
            return true
        }
    }

    /// Throws for the start of a head that no more bytes can make valid.
    private static func refuseEarly(_ buffer: [UInt8], from start: Int) throws(HTTPParseError) {
        guard let first = buffer.first else { return }
        if first == 0x16 {
            throw .badRequest("this server speaks plain HTTP; a TLS handshake was received")
        }
        guard isTokenByte(first) else {
            throw .badRequest("a request line starts with byte 0x\(String(first, radix: 16))")
        }
        var index = max(start, 0)
        while index < buffer.count {
            if buffer[index] == 0x0A, index == 0 || buffer[index - 1] != 0x0D {
                throw .badRequest("a bare LF in the request head")
            }
            index += 1
        }
    }

    /// A trailer field is a field line like a header's (RFC 9112 §7.1.2): a token name, a
    /// colon, no folding, no CR or NUL.
    private static func checkTrailer(_ line: [UInt8]) throws(HTTPParseError) {
        guard let first = line.first, first != 0x20, first != 0x09 else {
            throw .badRequest("a trailer line starts with white space (folded lines are not allowed)")
        }
        guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else {
            throw .badRequest("trailer line without a colon")
        }
        guard colon > 0, line[..<colon].allSatisfy(isTokenByte) else {
            throw .badRequest("invalid trailer name")
        }
        guard !line.contains(where: { $0 == 0 || $0 == 0x0D || $0 == 0x0A }) else {
            throw .badRequest("a CR, LF or NUL in a trailer line")
        }
    }

    private mutating func startBody(for head: HTTPRequestHead, _ events: inout [Event]) throws(HTTPParseError) {
        currentLimit = bodyLimit(head)
        bodyReceived = 0
        let lengths = head.headers.fields.filter { $0.name.lowercased() == "content-length" }.map(\.value)
        let encodings = head.headers.fields.filter { $0.name.lowercased() == "transfer-encoding" }.map(\.value)
        if !encodings.isEmpty {
            // RFC 9112 §6.1: HTTP/1.0 has no transfer codings; such a message's framing is faulty.
            guard head.minorVersion == 1 else { throw .badRequest("Transfer-Encoding in an HTTP/1.0 request") }
            guard lengths.isEmpty else { throw .badRequest("both Content-Length and Transfer-Encoding are present") }
            let coding = encodings.joined(separator: ",").lowercased().trimmingCharacters(in: .whitespaces)
            guard coding == "chunked" else { throw .unsupportedTransferEncoding(coding) }
            state = .chunkSize
            return
        }
        guard let first = lengths.first else {
            finishRequest(&events)
            return
        }
        guard lengths.allSatisfy({ $0 == first }), !first.isEmpty, first.count <= 18, first.allSatisfy(\.isASCIIDigit),
            let length = Int(first)
        else { throw .badRequest("invalid Content-Length \(first.debugDescription)") }
        guard length <= currentLimit else { throw .bodyTooLarge(limit: currentLimit) }
        if length == 0 {
            finishRequest(&events)
        } else {
            state = .fixedBody(remaining: length)
        }
    }

    private mutating func finishRequest(_ events: inout [Event]) {
        events.append(.end)
        state = .head
        trailerBytes = 0
    }

    /// The length of the line begun in `buffer` (no CRLF in it yet), without a final CR that
    /// may be the start of its CRLF.
    private var partialLineLength: Int {
        buffer.count - (buffer.last == 0x0D ? 1 : 0)
    }

    /// Removes and returns one CRLF-terminated line, without the CRLF.
    private mutating func takeLine() -> [UInt8]? {
        guard let end = Self.lineEnd(in: buffer, from: lineScanned) else {
            // A final CR may be the start of the CRLF: it is looked at again.
            lineScanned = max(0, buffer.count - 1)
            return nil
        }
        lineScanned = 0
        let line = Array(buffer[..<end])
        buffer.removeSubrange(..<(end + 2))
        return line
    }

    /// Where the first CRLF starts, searching from `start`.
    static func lineEnd(in buffer: [UInt8], from start: Int) -> Int? {
        buffer.withUnsafeBufferPointer { bytes in
            var index = max(start, 0)
            while index + 1 < bytes.count {
                if bytes[index] == 0x0D, bytes[index + 1] == 0x0A { return index }
                index += 1
            }
            return nil
        }
    }

    /// Where the first CRLF CRLF starts, searching from `start`.
    static func headEnd(in buffer: [UInt8], from start: Int) -> Int? {
        buffer.withUnsafeBufferPointer { bytes in
            var index = start
            while index + 3 < bytes.count {
                if bytes[index + 3] != 0x0A {
                    index += bytes[index + 3] == 0x0D ? 1 : 4
                    continue
                }
                if bytes[index] == 0x0D, bytes[index + 1] == 0x0A, bytes[index + 2] == 0x0D { return index }
                index += 1
            }
            return nil
        }
    }

    /// Parses a request head (without its final CRLF CRLF) byte by byte: the request line, then
    /// fields. A bare CR or LF, a NUL, folded lines and invalid names are refused.
    static func parseHead(_ bytes: UnsafeBufferPointer<UInt8>) throws(HTTPParseError) -> HTTPRequestHead {
        var lines: [Range<Int>] = []
        var lineStart = 0
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == 0 { throw .badRequest("a NUL byte in the request head") }
            if byte == 0x0A { throw .badRequest("a bare LF in the request head") }
            if byte == 0x0D {
                guard index + 1 < bytes.count, bytes[index + 1] == 0x0A else {
                    throw .badRequest("a bare CR in the request head")
                }
                lines.append(lineStart..<index)
                index += 2
                lineStart = index
                continue
            }
            index += 1
        }
        lines.append(lineStart..<bytes.count)
        let startLine = lines[0]
        func text(_ range: Range<Int>) -> String {
            String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self)
        }
        let spaces = startLine.filter { bytes[$0] == 0x20 }
        guard spaces.count == 2 else { throw .badRequest("invalid request line \(text(startLine).debugDescription)") }
        let methodRange = startLine.lowerBound..<spaces[0]
        let targetRange = (spaces[0] + 1)..<spaces[1]
        let versionRange = (spaces[1] + 1)..<startLine.upperBound
        guard !methodRange.isEmpty, methodRange.allSatisfy({ isTokenByte(bytes[$0]) }), !targetRange.isEmpty,
            targetRange.allSatisfy({ bytes[$0] > 0x20 && bytes[$0] != 0x7F })
        else { throw .badRequest("invalid request line \(text(startLine).debugDescription)") }
        let target: String
        if bytes[targetRange.lowerBound] == UInt8(ascii: "/")
            || (targetRange.count == 1 && bytes[targetRange.lowerBound] == UInt8(ascii: "*"))
        {
            target = text(targetRange)
        } else if let origin = originForm(ofAbsolute: text(targetRange)) {
            target = origin
        } else {
            throw .badRequest("invalid request line \(text(startLine).debugDescription)")
        }
        let version = text(versionRange)
        let minorVersion: Int
        switch version {
        case "HTTP/1.1": minorVersion = 1
        case "HTTP/1.0": minorVersion = 0
        default:
            if version.hasPrefix("HTTP/") { throw .versionNotSupported(version) }
            throw .badRequest("invalid request line \(text(startLine).debugDescription)")
        }
        var headers = HTTPHeaders()
        for line in lines.dropFirst() {
            guard !line.isEmpty, bytes[line.lowerBound] != 0x20, bytes[line.lowerBound] != 0x09 else {
                throw .badRequest("a header line starts with white space (folded headers are not allowed)")
            }
            guard let colon = line.first(where: { bytes[$0] == UInt8(ascii: ":") }) else {
                throw .badRequest("header line without a colon")
            }
            let name = line.lowerBound..<colon
            guard !name.isEmpty, name.allSatisfy({ isTokenByte(bytes[$0]) }) else {
                throw .badRequest("invalid header name \(text(name).debugDescription)")
            }
            var valueStart = colon + 1
            var valueEnd = line.upperBound
            while valueStart < valueEnd, bytes[valueStart] == 0x20 || bytes[valueStart] == 0x09 { valueStart += 1 }
            while valueEnd > valueStart, bytes[valueEnd - 1] == 0x20 || bytes[valueEnd - 1] == 0x09 { valueEnd -= 1 }
            headers.append(text(name), text(valueStart..<valueEnd))
        }
        // RFC 9112 §3.2: an HTTP/1.1 request has exactly one Host field; none, or more than
        // one, is a 400.
        let hosts = headers.fields.count { $0.name.lowercased() == "host" }
        if minorVersion == 1, hosts == 0 { throw .badRequest("HTTP/1.1 requests need a Host header") }
        if hosts > 1 { throw .badRequest("more than one Host header") }
        return HTTPRequestHead(
            method: text(methodRange), target: target, minorVersion: minorVersion, headers: headers)
    }

    /// The origin form (`/path?query`) of an absolute-form target (`http://host/path?query`),
    /// which a server must accept (RFC 9112 §3.2.2); `nil` when `target` is not an `http` or
    /// `https` URI with an authority.
    static func originForm(ofAbsolute target: String) -> String? {
        let lowered = target.lowercased()
        guard let scheme = ["http://", "https://"].first(where: { lowered.hasPrefix($0) }) else { return nil }
        let rest = target.dropFirst(scheme.count)
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? rest.endIndex
        guard authorityEnd > rest.startIndex, !rest[..<authorityEnd].contains("@") else { return nil }
        let pathAndQuery = rest[authorityEnd...]
        guard !pathAndQuery.contains("#") else { return nil }
        return pathAndQuery.hasPrefix("/") ? String(pathAndQuery) : "/" + pathAndQuery
    }

    /// RFC 9110 token characters: visible ASCII except delimiters.
    private static let tokenBytes: [Bool] = (0..<128).map { byte in
        guard byte > 0x20, byte < 0x7F else { return false }
        return !Array("\"(),/:;<=>?@[\\]{}".utf8).contains(UInt8(byte))
    }

    private static func isTokenByte(_ byte: UInt8) -> Bool {
        byte < 128 && tokenBytes[Int(byte)]
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { asciiValue.map { $0 >= 0x30 && $0 <= 0x39 } ?? false }
}
