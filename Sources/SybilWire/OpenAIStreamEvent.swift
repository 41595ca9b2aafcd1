import SybilCore

/// What one Server-Sent Event of an OpenAI-compatible chat stream means.
public enum OpenAIStreamEvent: Sendable, Hashable {
    /// A content increment.
    case chunk(ChatCompletionChunk)
    /// `data: [DONE]`: the normal end of the stream.
    case done
    /// An error frame inside the stream (an `error` event, or data with an `error` member):
    /// the stream failed even though the HTTP status was 200.
    case error(APIErrorBody)

    /// Interprets one event, read alone (an unpaired surrogate is U+FFFD where it stands; see
    /// ``decode(_:using:)`` for a stream). Malformed data is a ``JSONError`` naming the member.
    public static func decode(_ event: ServerSentEvent) throws(JSONError) -> OpenAIStreamEvent {
        var decoder = ChatCompletionChunkDecoder(joinsSplitSurrogates: false)
        return try decode(event, using: &decoder)
    }

    /// Interprets one event, reading a chunk with `decoder` (keep one per stream: it reuses its
    /// buffers and joins a surrogate pair split between two chunks; call its
    /// ``ChatCompletionChunkDecoder/finish()`` at the end). Chunks are read straight from the
    /// bytes; error frames, and data the chunk decoder refuses, go through the JSON tree
    /// (``decodeWithTree(_:)``), so that what is accepted and every error is exactly the tree
    /// decoder's (the differential tests and the `chat-response` fuzz target hold the two to
    /// that).
    public static func decode(
        _ event: ServerSentEvent, using decoder: inout ChatCompletionChunkDecoder
    ) throws(JSONError) -> OpenAIStreamEvent {
        // Nearly every event is a `message`: compared once (equal small strings compare as
        // one word; `!= "error"` on every event went through the general comparison).
        let isMessage = event.type == "message"
        if isMessage, event.dataBytes.count == 6, event.dataBytes.elementsEqual("[DONE]".utf8) {
            return .done
        }
        if isMessage || event.type != "error", let chunk = try? decoder.chunk(event.dataBytes) {
            return .chunk(chunk)
        }
        // The rare ways: an error frame, or a stream that ends on a malformed chunk.
        return try decodeWithTree(event)
    }

    /// Interprets one event by parsing its data into a ``JSONValue`` tree first: the reference
    /// the tree-free decoder is tested against, and the decoder of error frames. An unpaired
    /// surrogate escape is read as U+FFFD (RFC 8259 §8.2 allows one; a stream's JavaScript
    /// gateway may split a pair between two chunks), every other fault as ``JSONReader`` reads
    /// it.
    public static func decodeWithTree(_ event: ServerSentEvent) throws(JSONError) -> OpenAIStreamEvent {
        if event.type == "message", event.dataBytes.elementsEqual("[DONE]".utf8) { return .done }
        let value: JSONValue
        if let replaced = UnpairedSurrogateEscapes.replaced(in: event.dataBytes) {
            value = try JSONReader().parse(replaced)
        } else {
            value = try JSONReader().parse(event.dataBytes)
        }
        if event.type == "error" {
            if case .object(let object) = value, object["error"] != nil {
                return .error(try APIErrorBody.decode(value, at: .root))
            }
            let reader = try JSONObjectReader(value, at: .root)
            return .error(APIErrorBody(message: try reader.string("message")))
        }
        if case .object(let object) = value {
            // `{"error": "text"}` (TGI) and vLLM's older top-level `{"object": "error", …}` are
            // error frames too.
            var isErrorObject = false
            if case .string("error")? = object["object"], object["choices"] == nil { isErrorObject = true }
            if object["error"] != nil || isErrorObject {
                if let body = APIErrorBody.readLeniently(value) { return .error(body) }
                if object["error"] != nil { return .error(try APIErrorBody.decode(value, at: .root)) }
            }
        }
        return .chunk(try ChatCompletionChunk.decode(value, at: .root))
    }
}
