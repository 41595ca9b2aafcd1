import SybilCore

/// Decodes a `chat.completion.chunk` straight from the bytes of an event's data, without
/// building a JSON tree: the decoder a chat stream uses for every token.
///
/// It accepts exactly what the tree decoder (``OpenAIStreamEvent/decodeWithTree(_:)``:
/// ``JSONReader`` followed by ``ChatCompletionChunk/decode(_:at:)``) accepts and gives the same
/// chunk: every byte is checked (RFC 8259 grammar, UTF-8, escapes and surrogate pairs, 512
/// levels of nesting, 64 MiB), members it does not need are skipped
/// (nested objects and arrays too, still checked), the objects it reads (the root, each
/// choice, its `delta`, `usage`) refuse a member named twice, and every integer is range
/// checked (`choices[].index` and the token counts in `0…2^31−1`). Malformed input fails with a
/// ``JSONError`` naming the path, e.g. `choices[0].delta.content`. A root object with an `error`
/// member is an error frame: the decoder answers ``Outcome/errorMember`` and leaves it to
/// ``APIErrorBody`` (``OpenAIStreamEvent/decode(_:using:)`` does so).
///
/// An unpaired surrogate escape (RFC 8259 §8.2 allows `"\ud83d"` alone; JavaScript gateways
/// that cut a reply by UTF-16 code unit send one half of a pair in each of two chunks) is read
/// as U+FFFD, as the tree decoder reads it, rather than failing the reply. A decoder kept for
/// a stream (the default) also joins a pair split between two chunks' deltas of the same text
/// member: a `content`, reasoning or tool-call `arguments` that ends with an unpaired high
/// surrogate is handed on without it, and the next non-empty text of that member gets it back,
/// joined with the low surrogate that starts it or as U+FFFD (``ChatChunkSurrogateCarry``).
/// A choice's finish reason lets go of what is held for it; ``finish()`` hands on what is
/// still held when the stream ends. Nothing else is loosened: a bad escape such as `\uZZ12`
/// still fails, naming the path.
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

    /// A decoder with empty scratch buffers. Kept for a stream (`joinsSplitSurrogates`, the
    /// default), it joins a surrogate pair split between two chunks; otherwise it reads each
    /// chunk alone, every unpaired surrogate U+FFFD where it stands, exactly as the tree
    /// decoder reads it.
    public init(joinsSplitSurrogates: Bool = true) {
        scanner.replacesUnpairedSurrogates = true
        scanner.joinsSplitSurrogates = joinsSplitSurrogates
    }

    /// At the end of the stream: a chunk with each surrogate still held as U+FFFD (its choice,
    /// its member), or `nil` when none is (nearly always). Hand it on like the others.
    public mutating func finish() -> ChatCompletionChunk? {
        scanner.finishCarry()
    }

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
