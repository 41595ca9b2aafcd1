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
        if let error = try errorFrame(value) { return .error(error) }
        return .chunk(try ChatCompletionChunk.decode(value, at: .root))
    }

    /// Interprets the whole body of a server that answered a streamed request with one
    /// `application/json` document: a `chat.completion` is the reply's one chunk
    /// (``ChatCompletionChunk/decodeCompletion(_:at:)``), an object with an `error` member (or
    /// vLLM's `"object": "error"`, or Gemini's error in an array) an error. An unpaired surrogate escape is U+FFFD, every other
    /// fault a ``JSONError`` naming the member, as for a streamed chunk.
    public static func decodeWholeCompletion(_ bytes: [UInt8]) throws(JSONError) -> OpenAIStreamEvent {
        let value: JSONValue
        if let replaced = UnpairedSurrogateEscapes.replaced(in: bytes) {
            value = try JSONReader().parse(replaced)
        } else {
            value = try JSONReader().parse(bytes)
        }
        if let error = try errorFrame(value) { return .error(error) }
        // Gemini's OpenAI-compatible endpoint sends its errors as `[{"error": {…}}]`.
        if case .array = value, let error = APIErrorBody.readLeniently(value) { return .error(error) }
        return .chunk(try ChatCompletionChunk.decodeCompletion(value, at: .root))
    }

    /// The error a document says, when it is one: an `error` member, or, as `{"error": "text"}`
    /// (TGI) and vLLM's older top-level `{"object": "error", …}` are, in another common shape.
    private static func errorFrame(_ value: JSONValue) throws(JSONError) -> APIErrorBody? {
        guard case .object(let object) = value else { return nil }
        var isErrorObject = false
        if case .string("error")? = object["object"], object["choices"] == nil { isErrorObject = true }
        guard object["error"] != nil || isErrorObject else { return nil }
        if let body = APIErrorBody.readLeniently(value) { return body }
        if object["error"] != nil { return try APIErrorBody.decode(value, at: .root) }
        return nil
    }
}
