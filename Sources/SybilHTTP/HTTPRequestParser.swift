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
        case chunked(HTTPChunkedDecoder)
    }

    /// The largest request head (start line and fields).
    public let maximumHeadBytes: Int
    private let bodyLimit: @Sendable (HTTPRequestHead) -> Int
    private var state = State.head
    private var buffer: [UInt8] = []
    /// How far the current head has been searched for its end already.
    private var headScanned = 0

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
        case .chunked(var decoder):
            // The trailer section is bounded like a head; the body by the head's limit.
            let done: Bool
            do {
                done = try decoder.decode(&buffer) { events.append(.body($0)) }
            } catch {
                switch error {
                case .malformed(let reason): throw .badRequest(reason)
                case .trailersTooLarge(let limit): throw .headersTooLarge(limit: limit)
                case .bodyTooLarge(let limit): throw .bodyTooLarge(limit: limit)
                }
            }
            guard done else {
                state = .chunked(decoder)
                return false
            }
            finishRequest(&events)
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

    private mutating func startBody(for head: HTTPRequestHead, _ events: inout [Event]) throws(HTTPParseError) {
        let limit = bodyLimit(head)
        // One pass over the fields, without lowercasing or collecting them: the first length,
        // whether every other length equals it, and the transfer codings (rarely any).
        var firstLength: String?
        var lengthsAgree = true
        var encodings: [String] = []
        for field in head.headers.fields {
            if HTTPHeaders.isNamed(field.name, "content-length") {
                if let firstLength {
                    if field.value != firstLength { lengthsAgree = false }
                } else {
                    firstLength = field.value
                }
            } else if HTTPHeaders.isNamed(field.name, "transfer-encoding") {
                encodings.append(field.value)
            }
        }
        if !encodings.isEmpty {
            // RFC 9112 §6.1: HTTP/1.0 has no transfer codings; such a message's framing is faulty.
            guard head.minorVersion == 1 else { throw .badRequest("Transfer-Encoding in an HTTP/1.0 request") }
            guard firstLength == nil else {
                throw .badRequest("both Content-Length and Transfer-Encoding are present")
            }
            let coding = encodings.joined(separator: ",").lowercased().trimmingCharacters(in: .whitespaces)
            guard coding == "chunked" else { throw .unsupportedTransferEncoding(coding) }
            state = .chunked(HTTPChunkedDecoder(maximumTrailerBytes: maximumHeadBytes, bodyLimit: limit))
            return
        }
        guard let first = firstLength else {
            finishRequest(&events)
            return
        }
        guard lengthsAgree, !first.isEmpty, first.utf8.count <= 18,
            first.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let length = Int(first)
        else { throw .badRequest("invalid Content-Length \(first.debugDescription)") }
        guard length <= limit else { throw .bodyTooLarge(limit: limit) }
        if length == 0 {
            finishRequest(&events)
        } else {
            state = .fixedBody(remaining: length)
        }
    }

    private mutating func finishRequest(_ events: inout [Event]) {
        events.append(.end)
        state = .head
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
        lines.reserveCapacity(16)
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
        // Exactly two spaces, found without collecting them.
        var spaces = (first: -1, second: -1, count: 0)
        for index in startLine where bytes[index] == 0x20 {
            if spaces.count == 0 { spaces.first = index } else if spaces.count == 1 { spaces.second = index }
            spaces.count += 1
        }
        guard spaces.count == 2 else { throw .badRequest("invalid request line \(text(startLine).debugDescription)") }
        let methodRange = startLine.lowerBound..<spaces.first
        let targetRange = (spaces.first + 1)..<spaces.second
        let versionRange = (spaces.second + 1)..<startLine.upperBound
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
        // The version compared as bytes; a String only for the error.
        let minorVersion: Int
        let version = UnsafeBufferPointer(rebasing: bytes[versionRange])
        if version.elementsEqual("HTTP/1.1".utf8) {
            minorVersion = 1
        } else if version.elementsEqual("HTTP/1.0".utf8) {
            minorVersion = 0
        } else {
            let version = text(versionRange)
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
        let hosts = headers.fields.count { HTTPHeaders.isNamed($0.name, "host") }
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

    private static func isTokenByte(_ byte: UInt8) -> Bool {
        HTTPHeaders.isTokenByte(byte)
    }
}

extension HTTPHeaders {
    /// ``sameName(_:_:)`` after a length check: the request path compares every field name
    /// with a few known ones, and most differ in length (`utf8.count` costs nothing on a
    /// native string).
    static func isNamed(_ name: String, _ expected: String) -> Bool {
        name.utf8.count == expected.utf8.count && sameName(name, expected)
    }
}
