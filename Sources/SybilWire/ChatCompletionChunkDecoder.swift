import SybilCore

/// Decodes a `chat.completion.chunk` straight from the bytes of an event's data, without
/// building a JSON tree: the decoder a chat stream uses for every token.
///
/// It accepts exactly what ``JSONReader`` followed by ``ChatCompletionChunk/decode(_:at:)``
/// accepts and gives the same chunk: every byte is checked (RFC 8259 grammar, UTF-8, escapes
/// and surrogate pairs, 512 levels of nesting, 64 MiB), members it does not need are skipped
/// (nested objects and arrays too, still checked), the objects it reads (the root, each
/// choice, its `delta`, `usage`) refuse a member named twice, and every integer is range
/// checked (`choices[].index` and the token counts in `0…2^31−1`). Malformed input fails with a
/// ``JSONError`` naming the path, e.g. `choices[0].delta.content`. A root object with an `error`
/// member is an error frame: the decoder answers ``Outcome/errorMember`` and leaves it to
/// ``APIErrorBody`` (``OpenAIStreamEvent/decode(_:using:)`` does so).
///
/// The decoder keeps scratch buffers between calls; keep one per stream.
public struct ChatCompletionChunkDecoder: Sendable {
    /// What the bytes held.
    public enum Outcome: Sendable, Hashable {
        /// A chunk.
        case chunk(ChatCompletionChunk)
        /// A root object with an `error` member: an error frame, not decoded here.
        case errorMember
    }

    /// Kept for the whole stream: its scratch buffers, recent strings and shared extras carry
    /// over from chunk to chunk. Between passes it refers to no document (``ChatCompletionChunkScanner/end()``),
    /// so it holds only values that are safe to send.
    nonisolated(unsafe) private var scanner = ChatCompletionChunkScanner(
        bytes: UnsafeBufferPointer(start: nil, count: 0), maximumDepth: JSONReader.Limits.standard.maxDepth,
        ownedKeyBytes: [], scratch: [])
    private let maxBytes = JSONReader.Limits.standard.maxBytes

    /// A decoder with empty scratch buffers.
    public init() {}

    /// Decodes one chunk from the bytes of an event's data.
    public mutating func decode(_ bytes: [UInt8]) throws(JSONError) -> Outcome {
        guard let chunk = try chunk(bytes) else { return .errorMember }
        return .chunk(chunk)
    }

    /// Decodes one chunk from the bytes of an event's data; `nil` for an error frame
    /// (``Outcome/errorMember``). The chunk is handed out as it was built, without a wrapper
    /// to copy it out of.
    mutating func chunk(_ bytes: [UInt8]) throws(JSONError) -> ChatCompletionChunk? {
        guard bytes.count <= maxBytes else {
            throw JSONError(
                kind: .limit, path: .root, offset: maxBytes,
                message: "document is \(bytes.count) bytes; the limit is \(maxBytes) bytes")
        }
        do throws(ChatChunkScanFailure) {
            return try bytes.withUnsafeBufferPointer { buffer throws(ChatChunkScanFailure) in
                scanner.begin(buffer)
                defer { scanner.end() }
                return try scanner.scanDocument()
            }
        } catch {
            throw error.jsonError
        }
    }
}
