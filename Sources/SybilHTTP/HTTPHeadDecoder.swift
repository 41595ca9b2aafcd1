/// The line a head starts with: a request line or a status line. It is all that differs between
/// the heads ``HTTPHeadDecoder`` reads for the server and for the client.
protocol HTTPStartLine: Sendable {
    /// `request` or `response`: names the head in errors.
    static var message: String { get }
    /// Throws when the first bytes of a head still arriving already show that it cannot become
    /// one (`buffer` is not empty, and its head end has not arrived).
    static func refuseEarly(_ buffer: [UInt8]) throws(HTTPHeadError)
    /// Reads the start line, without its CRLF; it holds no CR, LF or NUL.
    static func parse(_ line: UnsafeBufferPointer<UInt8>) throws(HTTPHeadError) -> Self
}

/// The one incremental decoder of HTTP/1.1 heads (RFC 9112 §2–§5), for requests and responses
/// alike: it finds the head's end (CRLF CRLF) as bytes arrive, bounds it, splits it into lines
/// and reads the field lines; only the start line is the caller's (`StartLine`). The rules, the
/// same on both sides:
/// - the head, start line and fields, is at most `maximumHeadBytes` with its final CRLF CRLF,
///   refused as soon as more has arrived without an end; a line has no bound of its own below
///   the head's (a field line may fill a head);
/// - it has at most `maximumFieldCount` field lines;
/// - lines end in CRLF: a bare LF is refused as soon as it arrives, a bare CR or a NUL when the
///   head is complete;
/// - each field line is read by ``HTTPHeaders/fieldLine(in:_:kind:)``: a token name, a colon right
///   after it, no folding.
/// The body's framing is ``HTTPBodyFraming``'s, what it means the caller's.
struct HTTPHeadDecoder<StartLine: HTTPStartLine>: Sendable {
    /// The longest head, its final CRLF CRLF included.
    let maximumHeadBytes: Int
    /// The most field lines a head may have.
    let maximumFieldCount: Int
    /// How far the head at the buffer's front has been searched for its end already.
    private var scanned = 0

    /// A decoder with these bounds.
    init(maximumHeadBytes: Int, maximumFieldCount: Int) {
        self.maximumHeadBytes = maximumHeadBytes
        self.maximumFieldCount = maximumFieldCount
    }

    /// Reads the head at the front of `buffer` once it is complete, removes it (with its final
    /// CRLF CRLF) and returns it; `nil` while it is not. Throws as soon as the bytes show the
    /// head is malformed or too large, whatever the split.
    mutating func decode(_ buffer: inout [UInt8]) throws(HTTPHeadError) -> (startLine: StartLine, headers: HTTPHeaders)?
    {
        guard let end = Self.headEnd(in: buffer, from: scanned) else {
            try Self.refuseEarly(buffer, from: max(0, scanned - 1))
            scanned = max(0, buffer.count - 3)
            if buffer.count > maximumHeadBytes { throw .tooLarge(limit: maximumHeadBytes) }
            return nil
        }
        scanned = 0
        guard end + 4 <= maximumHeadBytes else { throw .tooLarge(limit: maximumHeadBytes) }
        let head = try buffer.withUnsafeBufferPointer { bytes throws(HTTPHeadError) in
            try parse(UnsafeBufferPointer(rebasing: bytes[..<end]))
        }
        buffer.removeSubrange(..<(end + 4))
        return head
    }

    /// Throws for the start of a head that no more bytes can make valid: a first byte the start
    /// line cannot begin with, or a bare LF at or after `start`.
    private static func refuseEarly(_ buffer: [UInt8], from start: Int) throws(HTTPHeadError) {
        guard !buffer.isEmpty else { return }
        try StartLine.refuseEarly(buffer)
        var index = start
        while index < buffer.count {
            if buffer[index] == 0x0A, index == 0 || buffer[index - 1] != 0x0D {
                throw .malformed("a bare LF in the \(StartLine.message) head")
            }
            index += 1
        }
    }

    /// Where the first CRLF CRLF starts, searching from `start`.
    static func headEnd(in buffer: [UInt8], from start: Int) -> Int? {
        buffer.withUnsafeBufferPointer { bytes in
            var index = start
            while index + 3 < bytes.count {
                // No CRLF CRLF can start at `index` … `index + 3` unless byte `index + 3` is a
                // CR or an LF.
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

    /// Reads a complete head (without its final CRLF CRLF) byte by byte: its lines, then the
    /// start line, then the fields.
    private func parse(_ bytes: UnsafeBufferPointer<UInt8>) throws(HTTPHeadError) -> (StartLine, HTTPHeaders) {
        var lines: [Range<Int>] = []
        lines.reserveCapacity(16)
        var lineStart = 0
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte > 0x0D {
                index += 1
                continue
            }
            if byte == 0 { throw .malformed("a NUL byte in the \(StartLine.message) head") }
            if byte == 0x0A { throw .malformed("a bare LF in the \(StartLine.message) head") }
            if byte == 0x0D {
                guard index + 1 < bytes.count, bytes[index + 1] == 0x0A else {
                    throw .malformed("a bare CR in the \(StartLine.message) head")
                }
                guard lines.count <= maximumFieldCount else { throw .tooManyFields(limit: maximumFieldCount) }
                lines.append(lineStart..<index)
                index += 2
                lineStart = index
                continue
            }
            index += 1
        }
        guard lines.count <= maximumFieldCount else { throw .tooManyFields(limit: maximumFieldCount) }
        lines.append(lineStart..<bytes.count)
        let startLine = try StartLine.parse(UnsafeBufferPointer(rebasing: bytes[lines[0]]))
        var headers = HTTPHeaders()
        headers.reserveCapacity(lines.count - 1)
        for line in lines.dropFirst() {
            let field = try HTTPHeaders.fieldLine(in: bytes, line, kind: "header")
            headers.append(Self.text(bytes, field.name), Self.text(bytes, field.value))
        }
        return (startLine, headers)
    }

    @inline(__always)
    private static func text(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> String {
        String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self)
    }
}
