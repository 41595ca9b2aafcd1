/// The one decoder of the chunked transfer coding (RFC 9112 §7.1), for request and response
/// bodies alike: chunk-size lines (extensions allowed and ignored, at most
/// ``maximumSizeLine`` bytes, a size of at most 15 hex digits), each chunk's data and its CRLF,
/// and the trailer section (field lines, bounded in total like a head). It reads from the
/// front of its parser's buffer, hands data on as it arrives, and leaves whatever follows the
/// body in the buffer. Limits hold however the bytes are split: a line arriving byte by byte is
/// scanned once and refused as soon as it is too long or holds a bare LF.
public struct HTTPChunkedDecoder: Sendable {
    /// Why a chunked body cannot be read.
    public enum Failure: Error, Sendable, Hashable, CustomStringConvertible {
        /// The framing is broken; the text names what is wrong.
        case malformed(String)
        /// The trailer section is longer than `limit` bytes.
        case trailersTooLarge(limit: Int)
        /// The chunks announce more data than the body's limit of `limit` bytes.
        case bodyTooLarge(limit: Int)

        /// One sentence naming the fault.
        public var description: String {
            switch self {
            case .malformed(let reason): reason
            case .trailersTooLarge(let limit): "the trailer section is longer than \(limit) bytes"
            case .bodyTooLarge(let limit): "the chunked body is larger than \(limit) bytes"
            }
        }
    }

    private enum State: Sendable, Hashable {
        case size
        case data(remaining: Int)
        case dataEnd
        case trailers
        case done
    }

    /// The longest chunk-size line (size and extensions), in bytes.
    public static let maximumSizeLine = 1_024
    private static let sizeLineTooLong = Failure.malformed("a chunk-size line is longer than \(maximumSizeLine) bytes")

    /// The largest trailer section, each line counted with its CRLF.
    public let maximumTrailerBytes: Int
    /// The most data the chunks may carry in all.
    public let bodyLimit: Int
    private var state = State.size
    private var announced = 0
    private var trailerBytes = 0
    /// How far the partial line at the buffer's start has been searched for its end already.
    private var lineScanned = 0

    /// A decoder for one body: `bodyLimit` bounds the data the chunk sizes announce (checked
    /// before the data arrives), `maximumTrailerBytes` the trailer section.
    public init(maximumTrailerBytes: Int, bodyLimit: Int = .max) {
        self.maximumTrailerBytes = maximumTrailerBytes
        self.bodyLimit = bodyLimit
    }

    /// Whether the body, its last chunk and its trailer section, has been read.
    public var isComplete: Bool { state == .done }

    /// Decodes what the front of `buffer` holds, removing what it used and handing each piece
    /// of data to `data` in order; returns whether the body is complete. What follows the body
    /// stays in `buffer`. When the bytes are malformed the pieces before the fault have been
    /// handed on and the failure is thrown.
    public mutating func decode(
        _ buffer: inout [UInt8], data: (_ piece: [UInt8]) -> Void
    ) throws(Failure) -> Bool {
        while true {
            switch state {
            case .size:
                guard
                    let line = try takeLine(
                        &buffer, limit: Self.maximumSizeLine, tooLong: Self.sizeLineTooLong, what: "a chunk-size line")
                else { return false }
                let size = try Self.size(of: line)
                if size == 0 {
                    state = .trailers
                } else {
                    guard size <= bodyLimit - announced else { throw .bodyTooLarge(limit: bodyLimit) }
                    announced += size
                    state = .data(remaining: size)
                }
            case .data(let remaining):
                guard !buffer.isEmpty else { return false }
                let count = min(remaining, buffer.count)
                data(Array(buffer[..<count]))
                buffer.removeSubrange(..<count)
                state = count == remaining ? .dataEnd : .data(remaining: remaining - count)
            case .dataEnd:
                guard buffer.count >= 2 else { return false }
                guard buffer[0] == 0x0D, buffer[1] == 0x0A else {
                    throw .malformed("chunk data is not followed by CRLF")
                }
                buffer.removeSubrange(..<2)
                state = .size
            case .trailers:
                // Each line is counted with its CRLF against what is left of the section; the
                // empty line that ends it always fits.
                let room = max(0, maximumTrailerBytes - trailerBytes - 2)
                let tooLong = Failure.trailersTooLarge(limit: maximumTrailerBytes)
                guard let line = try takeLine(&buffer, limit: room, tooLong: tooLong, what: "the trailer section")
                else {
                    return false
                }
                if line.isEmpty {
                    state = .done
                } else {
                    trailerBytes += line.count + 2
                    try Self.checkTrailer(line)
                }
            case .done:
                return true
            }
        }
    }

    /// Removes and returns one CRLF-terminated line (without the CRLF), or `nil` while it is
    /// incomplete; throws `tooLong` when it is already longer than `limit` bytes, and names
    /// `what` when it holds a bare LF.
    private mutating func takeLine(
        _ buffer: inout [UInt8], limit: Int, tooLong: Failure, what: String
    ) throws(Failure) -> [UInt8]? {
        guard let lf = buffer[min(lineScanned, buffer.count)...].firstIndex(of: 0x0A) else {
            // A final CR may be the start of the CRLF: it is looked at again, and not counted.
            lineScanned = max(0, buffer.count - 1)
            if buffer.count - (buffer.last == 0x0D ? 1 : 0) > limit { throw tooLong }
            return nil
        }
        lineScanned = 0
        guard lf > 0, buffer[lf - 1] == 0x0D else { throw .malformed("a bare LF in \(what)") }
        guard lf - 1 <= limit else { throw tooLong }
        let line = Array(buffer[..<(lf - 1)])
        buffer.removeSubrange(...lf)
        return line
    }

    /// `chunk-size [ *( BWS ";" BWS ext-name [ BWS "=" BWS ext-value ] ) ]`: the size in hex,
    /// extensions ignored (RFC 9112 §7.1.1).
    private static func size(of line: [UInt8]) throws(Failure) -> Int {
        guard !line.contains(where: { $0 < 0x20 && $0 != 0x09 || $0 == 0x7F }) else {
            throw .malformed("a control character in a chunk-size line")
        }
        var sizeBytes = line[..<(line.firstIndex(of: UInt8(ascii: ";")) ?? line.endIndex)]
        while let last = sizeBytes.last, last == 0x20 || last == 0x09 { sizeBytes = sizeBytes.dropLast() }
        let text = String(decoding: sizeBytes, as: UTF8.self)
        guard !text.isEmpty, text.count <= 15, text.allSatisfy(\.isHexDigit), let size = Int(text, radix: 16) else {
            throw .malformed("invalid chunk size \(text.debugDescription)")
        }
        return size
    }

    /// A trailer field is a field line like a header's (RFC 9112 §7.1.2), read by the same rules
    /// (``HTTPHeaders/fieldLine(in:_:kind:)``) once no CR or NUL is in it.
    private static func checkTrailer(_ line: [UInt8]) throws(Failure) {
        if line.contains(0) { throw .malformed("a NUL byte in a trailer line") }
        if line.contains(0x0D) { throw .malformed("a bare CR in a trailer line") }
        do {
            _ = try line.withUnsafeBufferPointer { bytes throws(HTTPHeadError) in
                try HTTPHeaders.fieldLine(in: bytes, 0..<bytes.count, kind: "trailer")
            }
        } catch {
            throw .malformed(error.description)
        }
    }
}
