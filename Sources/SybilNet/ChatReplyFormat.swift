/// How the body of a `200` answer to a streamed chat request is read, from its `Content-Type`.
///
/// Servers written against OpenAI's API do not all answer as it does: some ignore `"stream":
/// true` and send the whole `chat.completion` as one JSON document, and quickly written ones
/// stream events with no content type, as `text/plain`, or even as `application/json`. A client that refused them would
/// show an error where the server gave an answer.
enum ChatReplyFormat: Sendable, Equatable {
    /// `text/event-stream`: a stream of events.
    case events
    /// `application/json` or another `+json` type: one whole document, unless its first bytes
    /// start an event stream (a server that labels its events as JSON).
    case wholeDocument
    /// No content type, or `text/plain`: the first bytes decide (``startsDocument(_:)``).
    case sniffed

    /// The format a content type names, or `nil` for one that is neither (an HTML error page
    /// from a proxy, NDJSON): those are refused as ``ChatStreamError/wrongContentType(_:)``.
    init?(contentType: String?) {
        guard let contentType else {
            self = .sniffed
            return
        }
        let mediaType = contentType.split(separator: ";", maxSplits: 1).first.map(String.init) ?? ""
        switch mediaType.trimmingASCIIWhitespace().lowercased() {
        case "text/event-stream": self = .events
        case "application/json": self = .wholeDocument
        case let type where type.hasPrefix("application/") && type.hasSuffix("+json"): self = .wholeDocument
        case "text/plain", "": self = .sniffed
        default: return nil
        }
    }

    /// The most white space read at the start of a body before its format is decided without
    /// it (as an event stream, whose blank lines it may be): what is read ahead stays bounded.
    static var maximumLeadingWhitespace: Int { 64 << 10 }

    /// The body's first bytes, read from `body` up to its first piece holding a byte that is
    /// not white space (all of it when it has none, and at most about
    /// ``maximumLeadingWhitespace`` of white space): a server may send a blank line first, in
    /// a read of its own, and its first byte that is not white space decides the format.
    static func firstBytes(
        of body: inout AsyncThrowingStream<[UInt8], any Error>.Iterator, touch: () -> Void
    ) async throws -> [UInt8] {
        var bytes: [UInt8] = []
        while let piece = try await body.next() {
            touch()
            bytes.append(contentsOf: piece)
            if firstSignificantByte(of: piece) != nil || bytes.count > maximumLeadingWhitespace { break }
        }
        return bytes
    }

    /// Whether a body of this format whose first bytes are `bytes` is one whole document:
    /// always for ``wholeDocument`` unless it starts as an event stream does (a server that
    /// labels its events `application/json`); for ``sniffed`` only when it starts a JSON object
    /// (``startsDocument(_:)``); never for ``events``.
    func readsAsDocument(_ bytes: [UInt8]) -> Bool {
        switch self {
        case .events: false
        case .wholeDocument: !Self.startsEventStream(bytes)
        case .sniffed: Self.startsDocument(bytes)
        }
    }

    /// Whether `bytes`, the start of a body of unknown type, start a JSON document (`{` after
    /// optional white space) rather than an event stream (whose lines start with a field name
    /// or `:`).
    static func startsDocument(_ bytes: [UInt8]) -> Bool {
        firstSignificantByte(of: bytes) == UInt8(ascii: "{")
    }

    /// Whether `bytes` start an event stream: after optional white space, a comment (`:`) or
    /// the first letter of a field (`data`, `event`, `id`, `retry`), none of which starts a
    /// JSON document.
    static func startsEventStream(_ bytes: [UInt8]) -> Bool {
        guard let first = firstSignificantByte(of: bytes) else { return false }
        return [UInt8(ascii: ":"), UInt8(ascii: "d"), UInt8(ascii: "e"), UInt8(ascii: "i"), UInt8(ascii: "r")]
            .contains(first)
    }

    /// The first byte of `bytes` that is not JSON white space (space, tab, line feed, carriage
    /// return).
    private static func firstSignificantByte(of bytes: [UInt8]) -> UInt8? {
        bytes.first { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }
    }
}

extension String {
    /// The string without spaces and tabs at either end.
    fileprivate func trimmingASCIIWhitespace() -> Substring {
        var view = self[...]
        while let first = view.first, first == " " || first == "\t" { view = view.dropFirst() }
        while let last = view.last, last == " " || last == "\t" { view = view.dropLast() }
        return view
    }
}
