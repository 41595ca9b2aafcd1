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

    /// Interprets one event. Malformed data is a ``JSONError`` naming the member.
    public static func decode(_ event: ServerSentEvent) throws(JSONError) -> OpenAIStreamEvent {
        if event.type == "message", event.dataBytes.elementsEqual("[DONE]".utf8) { return .done }
        let value = try JSONReader().parse(event.dataBytes)
        if event.type == "error" {
            if case .object(let object) = value, object["error"] != nil {
                return .error(try APIErrorBody.decode(value, at: .root))
            }
            let reader = try JSONObjectReader(value, at: .root)
            return .error(APIErrorBody(message: try reader.string("message")))
        }
        if case .object(let object) = value, object["error"] != nil {
            return .error(try APIErrorBody.decode(value, at: .root))
        }
        return .chunk(try ChatCompletionChunk.decode(value, at: .root))
    }
}
