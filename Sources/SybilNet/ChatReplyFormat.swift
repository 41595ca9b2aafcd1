/// How the body of a `200` answer to a streamed chat request is read, from its `Content-Type`.
///
/// Servers written against OpenAI's API do not all answer as it does: some ignore `"stream":
/// true` and send the whole `chat.completion` as one JSON document, and quickly written ones
/// stream events with no content type, or as `text/plain`. A client that refused them would
/// show an error where the server gave an answer.
enum ChatReplyFormat: Sendable, Equatable {
    /// `text/event-stream`: a stream of events.
    case events
    /// `application/json` or another `+json` type: one whole document.
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

    /// The body's first bytes (at least one, unless the body is empty), read from `body`.
    static func firstBytes(
        of body: inout AsyncThrowingStream<[UInt8], any Error>.Iterator, touch: () -> Void
    ) async throws -> [UInt8] {
        while let piece = try await body.next() {
            touch()
            if !piece.isEmpty { return piece }
        }
        return []
    }

    /// Whether `bytes`, the start of a body of unknown type, start a JSON document (`{` after
    /// optional white space) rather than an event stream (whose lines start with a field name
    /// or `:`).
    static func startsDocument(_ bytes: [UInt8]) -> Bool {
        guard let first = bytes.first(where: { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }) else { return false }
        return first == UInt8(ascii: "{")
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
