/// A strict, incremental `multipart/form-data` parser (RFC 7578 over RFC 2046): bytes in,
/// part heads and part bytes out, in chunks of any size. Feeding a body whole or byte by byte
/// gives the same parts, or the same error.
///
/// - The boundary comes from the Content-Type's `boundary` parameter (a token or a quoted
///   string, 1 to 70 characters of RFC 2046's set, not ending in a space).
/// - A preamble before the first boundary and an epilogue after the last are skipped; every
///   delimiter is CRLF `--boundary`, followed by optional spaces or tabs and CRLF, or by `--`
///   on the last one. A body that ends before that final boundary is ``Failure/Kind/incomplete``.
/// - Part headers: lines of `Name: value` ending in CRLF (a bare CR or LF or a NUL is refused),
///   each read by the heads' field-line reader (``HTTPHeaders/fieldLine(in:_:kind:)``: a token
///   name, the colon right after it, no folding), at most ``Limits/maxHeaderBytes`` per part.
///   `Content-Disposition: form-data` with a `name` is required; `filename` (a quoted file name
///   with `%22`, `%5C`, `%0D`, `%0A` decoded, the inverse of ``MultipartFormData``) and
///   `filename*=UTF-8''…` (RFC 8187, which wins when both are present) are read; so is
///   `Content-Type` (`type/subtype`, parameters dropped). Other headers are ignored
///   (RFC 7578 §4.8).
/// - Limits are checked as bytes arrive, never after buffering: the body's total size, the
///   number of parts, each part's header size and each part's content size (the
///   `partLimit` given for its head, or ``Limits/maxPartBytes``). The parser keeps at most
///   one fed chunk plus a boundary's length of part content; content is handed out as
///   ``Event/partBytes(_:)``.
///
/// After a ``Failure`` the parser stays failed: every later call throws it again.
public struct MultipartFormDataParser: Sendable {
    /// The limits a parser enforces.
    public struct Limits: Sendable, Hashable {
        /// Parts in the body.
        public var maxParts: Int
        /// Bytes of one part's header block, its final empty line included.
        public var maxHeaderBytes: Int
        /// Content bytes of one part (unless `partLimit` says otherwise for it).
        public var maxPartBytes: Int
        /// Bytes of the whole body as received, preamble, boundaries and epilogue included.
        public var maxBodyBytes: Int

        /// Creates limits; 8 KiB of headers per part by default.
        public init(maxParts: Int, maxHeaderBytes: Int = 8 << 10, maxPartBytes: Int, maxBodyBytes: Int) {
            self.maxParts = maxParts
            self.maxHeaderBytes = maxHeaderBytes
            self.maxPartBytes = maxPartBytes
            self.maxBodyBytes = maxBodyBytes
        }
    }

    /// What a part's headers say.
    public struct PartHead: Sendable, Hashable {
        /// The part's position, from 0.
        public var index: Int
        /// The field name (`Content-Disposition` `name`).
        public var name: String
        /// The file name, for a file part.
        public var fileName: String?
        /// `type/subtype` of the part's `Content-Type`, lowercased, when it has one.
        public var contentType: String?

        /// Creates a head.
        public init(index: Int, name: String, fileName: String? = nil, contentType: String? = nil) {
            self.index = index
            self.name = name
            self.fileName = fileName
            self.contentType = contentType
        }
    }

    /// What the fed bytes complete, in body order.
    public enum Event: Sendable, Hashable {
        /// A part's headers were read.
        case partBegan(PartHead)
        /// Content of the current part (a part's content may come in many pieces).
        case partBytes([UInt8])
        /// The current part's content ended.
        case partEnded
    }

    /// Why a body was refused. The message names the part and the rule; it never quotes
    /// part content.
    public struct Failure: Error, Sendable, Hashable, CustomStringConvertible {
        /// The family of problem.
        public enum Kind: Sendable, Hashable {
            /// The Content-Type is not `multipart/form-data` with a valid boundary.
            case contentType
            /// The body breaks the multipart or part-header syntax.
            case malformed
            /// More parts than ``Limits/maxParts``.
            case tooManyParts
            /// A part's header block is larger than ``Limits/maxHeaderBytes``.
            case headerTooLarge
            /// A part's content is larger than its limit.
            case partTooLarge
            /// The body is larger than ``Limits/maxBodyBytes``.
            case bodyTooLarge
            /// The body ended before its final boundary.
            case incomplete
        }

        /// The family of problem.
        public var kind: Kind
        /// The part at fault, when there is one.
        public var partIndex: Int?
        /// That part's head, when its headers were read.
        public var part: PartHead?
        /// The limit that was exceeded, for the `…TooLarge` kinds.
        public var limit: Int?
        /// What is wrong, e.g. `part 1 ("file") is larger than 8388608 bytes`.
        public var message: String

        /// Creates a failure.
        public init(kind: Kind, partIndex: Int? = nil, part: PartHead? = nil, limit: Int? = nil, message: String) {
            self.kind = kind
            self.partIndex = partIndex ?? part?.index
            self.part = part
            self.limit = limit
            self.message = message
        }

        public var description: String { message }
    }

    private enum State: Sendable {
        /// Skipping the preamble to the first delimiter.
        case preamble
        /// Just after a delimiter: `--`, or padding and CRLF.
        case afterDelimiter
        /// After a delimiter and optional spaces or tabs; CRLF must follow.
        case delimiterPadding
        /// Reading a part's header block; `pending` starts with the CRLF that ended the
        /// boundary line, so the block's end is always CRLF CRLF.
        case headers
        /// Streaming a part's content.
        case content
        /// After the final delimiter's `--`: optional spaces or tabs, then CRLF or the end.
        case closing
        /// After the final boundary line: everything is ignored.
        case epilogue
    }

    /// The limits in force.
    public let limits: Limits
    /// The boundary, without its leading dashes.
    public let boundary: String
    private let partLimit: @Sendable (PartHead) -> Int
    /// CRLF `--boundary`.
    private let delimiter: [UInt8]
    private var state = State.preamble
    private var pending: [UInt8]
    private var start = 0
    private var received = 0
    private var partCount = 0
    private var current: PartHead?
    private var currentLimit = 0
    private var currentSize = 0
    private var failure: Failure?

    /// A parser for a body with `boundary`; `partLimit` gives each part's content limit from
    /// its head (``Limits/maxPartBytes`` when `nil`).
    public init(boundary: String, limits: Limits, partLimit: (@Sendable (PartHead) -> Int)? = nil) throws(Failure) {
        try Self.validate(boundary: boundary)
        self.boundary = boundary
        self.limits = limits
        let fallback = limits.maxPartBytes
        self.partLimit = partLimit ?? { _ in fallback }
        delimiter = [0x0D, 0x0A, 0x2D, 0x2D] + Array(boundary.utf8)
        // The virtual CRLF lets a body start with its first boundary (no preamble).
        pending = [0x0D, 0x0A]
    }

    /// A parser for a body whose `Content-Type` is `contentType`.
    public init(contentType: String, limits: Limits, partLimit: (@Sendable (PartHead) -> Int)? = nil) throws(Failure) {
        try self.init(boundary: try Self.boundary(ofContentType: contentType), limits: limits, partLimit: partLimit)
    }

    /// Whether the final boundary was read (more bytes are epilogue).
    public var isComplete: Bool {
        switch state {
        case .closing, .epilogue: failure == nil
        default: false
        }
    }

    /// Body bytes fed so far.
    public var bytesReceived: Int { received }

    /// Feeds the next piece of the body; returns what it completes.
    public mutating func feed(_ bytes: some Collection<UInt8>) throws(Failure) -> [Event] {
        if let failure { throw failure }
        let room = limits.maxBodyBytes - received
        var events: [Event] = []
        do throws(Failure) {
            if bytes.count > room {
                pending.append(contentsOf: bytes.prefix(room))
                received += room
                try run(&events)
                throw Failure(
                    kind: .bodyTooLarge, limit: limits.maxBodyBytes,
                    message: "the body is larger than \(limits.maxBodyBytes) bytes")
            }
            pending.append(contentsOf: bytes)
            received += bytes.count
            try run(&events)
        } catch {
            failure = error
            pending = []
            start = 0
            throw error
        }
        return events
    }

    /// Ends the body: throws unless the final boundary was read.
    public mutating func finish() throws(Failure) {
        if let failure { throw failure }
        guard !isComplete else { return }
        let error: Failure
        switch state {
        case .preamble:
            error = Failure(kind: .incomplete, message: "the body ended before its first boundary")
        case .headers:
            error = Failure(
                kind: .incomplete, partIndex: partCount - 1,
                message: "the body ended inside the headers of part \(partCount - 1)")
        case .content:
            error = Failure(
                kind: .incomplete, part: current,
                message: "the body ended inside \(Self.describe(current)) without the final boundary")
        default:
            error = Failure(kind: .incomplete, message: "the body ended without the final boundary")
        }
        failure = error
        throw error
    }

    /// Parses a whole body into its parts (fed in 64 KiB pieces).
    public static func parse(_ body: [UInt8], contentType: String, limits: Limits) throws(Failure)
        -> [MultipartFormData.Part]
    {
        var parser = try MultipartFormDataParser(contentType: contentType, limits: limits)
        var parts: [MultipartFormData.Part] = []
        var offset = 0
        repeat {
            let end = min(body.count, offset + (64 << 10))
            for event in try parser.feed(body[offset..<end]) {
                switch event {
                case .partBegan(let head):
                    parts.append(
                        MultipartFormData.Part(
                            name: head.name, fileName: head.fileName, contentType: head.contentType, body: []))
                case .partBytes(let bytes): parts[parts.count - 1].body += bytes
                case .partEnded: break
                }
            }
            offset = end
        } while offset < body.count
        try parser.finish()
        return parts
    }

    /// The `boundary` parameter of a `multipart/form-data` Content-Type.
    public static func boundary(ofContentType contentType: String) throws(Failure) -> String {
        let parameters = try MIMEParameters(contentType, field: "Content-Type")
        guard parameters.value.lowercased() == "multipart/form-data" else {
            throw Failure(
                kind: .contentType,
                message: "Content-Type must be multipart/form-data, got \(quoted(parameters.value))")
        }
        guard let boundary = parameters["boundary"] else {
            throw Failure(kind: .contentType, message: "Content-Type has no boundary parameter")
        }
        try validate(boundary: boundary)
        return boundary
    }

    // MARK: The state machine

    private mutating func run(_ events: inout [Event]) throws(Failure) {
        while try step(&events) {}
        if start > 0 && (start >= pending.count || start >= 64 << 10) {
            pending.removeSubrange(..<start)
            start = 0
        }
    }

    /// Advances once; returns whether it made progress.
    private mutating func step(_ events: inout [Event]) throws(Failure) -> Bool {
        let available = pending.count - start
        switch state {
        case .preamble:
            if let found = find(delimiter) {
                start = found + delimiter.count
                state = .afterDelimiter
                return true
            }
            // Keep only what could still begin the first delimiter.
            start = max(start, pending.count - (delimiter.count - 1))
            return false
        case .afterDelimiter:
            guard available >= 1 else { return false }
            if pending[start] == 0x2D {
                guard available >= 2 else { return false }
                guard pending[start + 1] == 0x2D else {
                    throw malformed("a boundary is followed by \(Self.describeByte(pending[start + 1])) after '-'")
                }
                guard partCount > 0 else { throw malformed("the body has no parts") }
                start += 2
                state = .closing
                return true
            }
            state = .delimiterPadding
            return true
        case .delimiterPadding:
            while start < pending.count, pending[start] == 0x20 || pending[start] == 0x09 { start += 1 }
            guard pending.count - start >= 2 else {
                if start < pending.count, pending[start] != 0x0D {
                    throw malformed("a boundary line has \(Self.describeByte(pending[start])) before its CRLF")
                }
                return false
            }
            guard pending[start] == 0x0D, pending[start + 1] == 0x0A else {
                throw malformed("a boundary line has \(Self.describeByte(pending[start])) before its CRLF")
            }
            guard partCount < limits.maxParts else {
                throw Failure(
                    kind: .tooManyParts, partIndex: partCount, limit: limits.maxParts,
                    message: "the body has more than \(limits.maxParts) parts")
            }
            partCount += 1
            // The CRLF stays: the header block is then always ended by CRLF CRLF.
            state = .headers
            return true
        case .headers:
            let terminator: [UInt8] = [0x0D, 0x0A, 0x0D, 0x0A]
            let index = partCount - 1
            guard let end = find(terminator) else {
                if available - 2 >= limits.maxHeaderBytes { throw headerTooLarge(index) }
                return false
            }
            let blockSize = end + 4 - (start + 2)
            guard blockSize <= limits.maxHeaderBytes else { throw headerTooLarge(index) }
            // A part without headers ends its (empty) block at once: the terminator starts at `start`.
            let blockEnd = max(end, start + 2)
            let head = try pending.withUnsafeBufferPointer { bytes throws(Failure) in
                try Self.parseHeaders(UnsafeBufferPointer(rebasing: bytes[(start + 2)..<blockEnd]), index: index)
            }
            start = end + 4
            current = head
            currentLimit = max(0, partLimit(head))
            currentSize = 0
            events.append(.partBegan(head))
            state = .content
            return true
        case .content:
            if let found = find(delimiter) {
                try emit(upTo: found, &events)
                events.append(.partEnded)
                current = nil
                start = found + delimiter.count
                state = .afterDelimiter
                return true
            }
            let safe = pending.count - (delimiter.count - 1)
            guard safe > start else { return false }
            try emit(upTo: safe, &events)
            return false
        case .closing:
            while start < pending.count, pending[start] == 0x20 || pending[start] == 0x09 { start += 1 }
            guard pending.count - start >= 2 else {
                if start < pending.count, pending[start] != 0x0D {
                    throw malformed("the final boundary has \(Self.describeByte(pending[start])) after its '--'")
                }
                return false
            }
            guard pending[start] == 0x0D, pending[start + 1] == 0x0A else {
                throw malformed("the final boundary has \(Self.describeByte(pending[start])) after its '--'")
            }
            start += 2
            state = .epilogue
            return true
        case .epilogue:
            start = pending.count
            return false
        }
    }

    /// Hands out the current part's content before `end`, checking its limit first.
    private mutating func emit(upTo end: Int, _ events: inout [Event]) throws(Failure) {
        let count = end - start
        guard count > 0 else { return }
        guard currentSize + count <= currentLimit else {
            throw Failure(
                kind: .partTooLarge, part: current, limit: currentLimit,
                message: "\(Self.describe(current)) is larger than \(currentLimit) bytes")
        }
        currentSize += count
        events.append(.partBytes(Array(pending[start..<end])))
        start = end
    }

    /// The first index at or after `start` where `needle` begins.
    private func find(_ needle: [UInt8]) -> Int? {
        pending.withUnsafeBufferPointer { bytes in
            needle.withUnsafeBufferPointer { needle in
                guard bytes.count - start >= needle.count, let first = needle.first else { return nil }
                var index = start
                let last = bytes.count - needle.count
                while index <= last {
                    if bytes[index] == first {
                        var matched = 1
                        while matched < needle.count, bytes[index + matched] == needle[matched] { matched += 1 }
                        if matched == needle.count { return index }
                    }
                    index += 1
                }
                return nil
            }
        }
    }

    private func malformed(_ message: String) -> Failure {
        Failure(kind: .malformed, message: message)
    }

    private func headerTooLarge(_ index: Int) -> Failure {
        Failure(
            kind: .headerTooLarge, partIndex: index, limit: limits.maxHeaderBytes,
            message: "the headers of part \(index) are larger than \(limits.maxHeaderBytes) bytes")
    }

    // MARK: Part headers

    /// Parses a part's header block (without its final CRLF CRLF).
    private static func parseHeaders(_ bytes: UnsafeBufferPointer<UInt8>, index: Int) throws(Failure) -> PartHead {
        func fail(_ message: String) -> Failure {
            Failure(kind: .malformed, partIndex: index, message: "part \(index): \(message)")
        }
        var disposition: String?
        var contentType: String?
        var lineStart = 0
        var offset = 0
        var lines: [Range<Int>] = []
        while offset < bytes.count {
            switch bytes[offset] {
            case 0: throw fail("a NUL byte in the headers")
            case 0x0A: throw fail("a bare LF in the headers")
            case 0x0D:
                guard offset + 1 < bytes.count, bytes[offset + 1] == 0x0A else {
                    throw fail("a bare CR in the headers")
                }
                lines.append(lineStart..<offset)
                offset += 2
                lineStart = offset
            default: offset += 1
            }
        }
        if !bytes.isEmpty { lines.append(lineStart..<bytes.count) }
        for line in lines {
            // The field-line syntax is the heads' (HTTPHeaders.fieldLine): a token name, the colon
            // right after it, no folding; the block's CR, LF and NUL were refused above.
            let field: (name: Range<Int>, value: Range<Int>)
            do throws(HTTPHeadError) {
                field = try HTTPHeaders.fieldLine(in: bytes, line, kind: "header")
            } catch {
                throw fail(error.description)
            }
            let name = String(decoding: UnsafeBufferPointer(rebasing: bytes[field.name]), as: UTF8.self).lowercased()
            guard let trimmed = String(validating: UnsafeBufferPointer(rebasing: bytes[field.value]), as: UTF8.self)
            else { throw fail("the \(name) header is not UTF-8") }
            switch name {
            case "content-disposition":
                guard disposition == nil else { throw fail("Content-Disposition appears twice") }
                disposition = trimmed
            case "content-type":
                guard contentType == nil else { throw fail("Content-Type appears twice") }
                contentType = trimmed
            case "content-transfer-encoding":
                guard ["7bit", "8bit", "binary"].contains(trimmed.lowercased()) else {
                    throw fail(
                        "Content-Transfer-Encoding \(quoted(trimmed)) is not supported; send the bytes as they are")
                }
            default:
                continue  // RFC 7578 §4.8: other header fields are ignored.
            }
        }
        guard let disposition else { throw fail("Content-Disposition is missing") }
        let parameters: MIMEParameters
        do {
            parameters = try MIMEParameters(disposition, field: "Content-Disposition")
        } catch {
            throw fail(error.message)
        }
        guard parameters.value.lowercased() == "form-data" else {
            throw fail("Content-Disposition must be form-data, got \(quoted(parameters.value))")
        }
        guard let name = parameters["name"] else { throw fail("Content-Disposition has no name") }
        var fileName = parameters["filename"].map(decodeFormEscapes)
        if let extended = parameters["filename*"] {
            guard let decoded = decodeExtendedValue(extended) else {
                throw fail("filename* must be UTF-8'' followed by a percent-encoded UTF-8 name (RFC 8187)")
            }
            fileName = decoded
        }
        var type: String?
        if let contentType {
            let typeParameters: MIMEParameters
            do {
                typeParameters = try MIMEParameters(contentType, field: "Content-Type")
            } catch {
                throw fail(error.message)
            }
            let parts = typeParameters.value.split(separator: "/", omittingEmptySubsequences: false)
            guard parts.count == 2, parts.allSatisfy({ !$0.isEmpty && $0.utf8.allSatisfy(isTokenByte) }) else {
                throw fail("Content-Type must be type/subtype, got \(quoted(typeParameters.value))")
            }
            type = typeParameters.value.lowercased()
        }
        return PartHead(index: index, name: decodeFormEscapes(name), fileName: fileName, contentType: type)
    }

    /// Undoes the WHATWG form escapes ``MultipartFormData`` writes: `%22`, `%5C`, `%0D`, `%0A`.
    static func decodeFormEscapes(_ text: String) -> String {
        guard text.contains("%") else { return text }
        var result = ""
        var scalars = text.unicodeScalars[...]
        while let scalar = scalars.popFirst() {
            if scalar == "%", scalars.count >= 2 {
                let code = String(String.UnicodeScalarView(scalars.prefix(2))).uppercased()
                let replacement: Unicode.Scalar? =
                    switch code {
                    case "22": "\""
                    case "5C": "\\"
                    case "0D": "\r"
                    case "0A": "\n"
                    default: nil
                    }
                if let replacement {
                    result.unicodeScalars.append(replacement)
                    scalars = scalars.dropFirst(2)
                    continue
                }
            }
            result.unicodeScalars.append(scalar)
        }
        return result
    }

    /// Decodes an RFC 8187 `UTF-8'lang'percent-encoded` value; `nil` when it is not one.
    static func decodeExtendedValue(_ text: String) -> String? {
        let pieces = text.split(separator: "'", maxSplits: 2, omittingEmptySubsequences: false)
        guard pieces.count == 3, pieces[0].lowercased() == "utf-8" else { return nil }
        // RFC 8187 attr-char unescaped: ALPHA / DIGIT / "!#$&+-.^_`|~".
        guard
            let bytes = PercentEscapes.decode(
                pieces[2].utf8, plusIsSpace: false, brokenEscape: .refuse,
                allowed: { byte in
                    byte < 0x80 && isTokenByte(byte) && byte != UInt8(ascii: "*") && byte != UInt8(ascii: "'")
                })
        else { return nil }
        guard !bytes.isEmpty else { return nil }
        return String(validating: bytes, as: UTF8.self)
    }

    // MARK: Helpers

    /// RFC 2046: 1 to 70 of `DIGIT ALPHA '()+_,-./:=?` and space, not ending in a space.
    static func validate(boundary: String) throws(Failure) {
        let allowed = Array("'()+_,-./:=? ".utf8)
        guard (1...70).contains(boundary.utf8.count), boundary.utf8.last != 0x20,
            boundary.utf8.allSatisfy({ byte in
                (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
                    || allowed.contains(byte)
            })
        else {
            throw Failure(
                kind: .contentType,
                message:
                    "the boundary must be 1 to 70 letters, digits or '()+_,-./:=? and spaces, not ending in a space; got \(quoted(boundary))"
            )
        }
    }

    /// RFC 9110 token characters: visible ASCII except delimiters.
    static func isTokenByte(_ byte: UInt8) -> Bool {
        guard byte > 0x20, byte < 0x7F else { return false }
        return !Array("\"(),/:;<=>?@[\\]{}".utf8).contains(byte)
    }

    static func quoted(_ text: String) -> String {
        "\"" + String(text.unicodeScalars.prefix(80).map { $0.isASCII && $0.value >= 0x20 ? Character($0) : "?" })
            + "\""
    }

    static func trimmed(_ text: String) -> String {
        var scalars = text.unicodeScalars[...]
        while let first = scalars.first, first == " " || first == "\t" { scalars = scalars.dropFirst() }
        while let last = scalars.last, last == " " || last == "\t" { scalars = scalars.dropLast() }
        return String(String.UnicodeScalarView(scalars))
    }

    private static func describe(_ head: PartHead?) -> String {
        guard let head else { return "a part" }
        return "part \(head.index) (\(quoted(head.name)))"
    }

    private static func describeByte(_ byte: UInt8) -> String {
        (0x21..<0x7F).contains(byte) ? "'\(Character(Unicode.Scalar(byte)))'" : "byte 0x\(String(byte, radix: 16))"
    }
}

extension MultipartFormDataParser {
    /// A header value with parameters, `value *( ";" name "=" ( token / quoted-string ) )`
    /// (RFC 9110 §5.6.6): names compared without case, each at most once.
    fileprivate struct MIMEParameters {
        /// Why a header value could not be read.
        struct Problem: Error {
            var message: String
        }

        /// The value before the first `;`.
        var value: String
        private var parameters: [String: String] = [:]

        init(_ text: String, field: String) throws(Failure) {
            do {
                try self.init(parsing: text, field: field)
            } catch {
                throw Failure(kind: .contentType, message: error.message)
            }
        }

        private init(parsing text: String, field: String) throws(Problem) {
            var scalars = text.unicodeScalars[...]
            func skipSpace() {
                while let first = scalars.first, first == " " || first == "\t" { scalars = scalars.dropFirst() }
            }
            func token() -> String {
                var result = String.UnicodeScalarView()
                while let first = scalars.first, first.isASCII, MultipartFormDataParser.isTokenByte(UInt8(first.value))
                {
                    result.append(first)
                    scalars = scalars.dropFirst()
                }
                return String(result)
            }
            skipSpace()
            var head = String.UnicodeScalarView()
            while let first = scalars.first, first != ";" {
                head.append(first)
                scalars = scalars.dropFirst()
            }
            value = MultipartFormDataParser.trimmed(String(head))
            guard !value.isEmpty else { throw Problem(message: "\(field) is empty") }
            while scalars.popFirst() == ";" {
                skipSpace()
                if scalars.isEmpty { break }  // a trailing ";"
                let name = token().lowercased()
                guard !name.isEmpty, scalars.popFirst() == "=" else {
                    throw Problem(message: "\(field) has a parameter that is not name=value")
                }
                var parameterValue: String
                if scalars.first == "\"" {
                    scalars = scalars.dropFirst()
                    var result = String.UnicodeScalarView()
                    var closed = false
                    while let next = scalars.popFirst() {
                        if next == "\"" {
                            closed = true
                            break
                        }
                        if next == "\\" {
                            guard let escaped = scalars.popFirst() else { break }
                            result.append(escaped)
                        } else {
                            result.append(next)
                        }
                    }
                    guard closed else {
                        throw Problem(message: "\(field) parameter \(name) has an unterminated quoted string")
                    }
                    parameterValue = String(result)
                } else {
                    parameterValue = token()
                    guard !parameterValue.isEmpty else {
                        throw Problem(message: "\(field) parameter \(name) has no value")
                    }
                }
                guard parameters[name] == nil else {
                    throw Problem(message: "\(field) parameter \(name) appears twice")
                }
                parameters[name] = parameterValue
                skipSpace()
                guard scalars.isEmpty || scalars.first == ";" else {
                    throw Problem(message: "\(field) parameter \(name) is followed by something other than ';'")
                }
            }
        }

        subscript(name: String) -> String? { parameters[name] }
    }
}
