import Foundation
import SybilCore
import SybilHTTP
import SybilWire
import Synchronization

/// The transport layer of chat streaming (SPEC §5.2): sends the request, maps every HTTP
/// status to a distinct ``ChatStreamError`` that keeps the server's body and `Retry-After`,
/// reads a `text/event-stream` body (a whole `chat.completion` document from a server that
/// ignored `"stream": true` is the reply's one chunk: ``ChatReplyFormat``), feeds it to the
/// event-stream parser, and yields chat
/// chunks until `data: [DONE]`. An `error` frame is a failure; a stream that ends without
/// `[DONE]` is ``ChatStreamError/interrupted`` unless a chunk brought a `finish_reason` (many
/// servers close right after it, or after the usage chunk that follows it), and so is one that
/// goes silent for `stallTimeout` after a `finish_reason`; no bytes for `stallTimeout`, or no response
/// head within the request's `timeout` (both on the injected clock, or the HTTP client timing
/// out), is ``ChatStreamError/stalled(after:)``. Cancelling the consumer cancels the request.
///
/// ``deliveries(for:)`` also hands on each chunk's event id (`id:`), which a resumable server
/// sends, so the caller can resume a dropped stream from it.
public struct SSEChatTransport<C: Clock>: Sendable where C.Duration == Duration {
    private let http: any HTTPClient
    private let clock: C
    /// How long the stream may stay silent (heartbeat comments count as activity).
    public let stallTimeout: Duration

    /// A transport over `http`, timing stalls on `clock`.
    public init(http: any HTTPClient, clock: C, stallTimeout: Duration = .seconds(30)) {
        self.http = http
        self.clock = clock
        self.stallTimeout = stallTimeout
    }

    /// One chunk and the event id it came with.
    public typealias Delivery = ChatChunkDelivery

    /// Streams the chunks of the reply to `request` (as ``deliveries(for:)``, without the
    /// event ids).
    public func chunks(for request: HTTPRequest) -> BoundedBatchStream<ChatCompletionChunk> {
        BoundedStream.makeBatched { yield in
            try await deliver(request) { batch, cost in await yield(batch.map(\.chunk), cost) }
        }
    }

    /// Streams the chunks of the reply to `request` with their event ids. Bounded: while the
    /// consumer is behind by ``BoundedStream/defaultLimit`` bytes of events, the body is not
    /// read, and TCP slows the server. The chunks of one read of the body are handed over
    /// together (``BoundedBatchStream``), not one task hand-off each.
    public func deliveries(for request: HTTPRequest) -> BoundedBatchStream<Delivery> {
        BoundedStream.makeBatched { yield in try await deliver(request, into: yield) }
    }

    /// Reads the reply to `request` into `yield`, a batch per read of the body, with the
    /// errors mapped.
    private func deliver(_ request: HTTPRequest, into yield: @escaping BoundedBatchYield<Delivery>) async throws {
        do {
            try await run(request, into: yield)
        } catch let error as ChatStreamError {
            throw error
        } catch is CancellationError {
            throw CancellationError()
        } catch let refusal as HTTPRedirectRefused {
            throw ChatStreamError.redirected(refusal)
        } catch let error where HTTPTimeout.matches(error) {
            throw ChatStreamError.stalled(after: request.timeout)
        } catch {
            throw ChatStreamError.transport(String(describing: error))
        }
    }

    /// The response head, or ``ChatStreamError/stalled(after:)`` when none came within the
    /// request's timeout on the injected clock.
    private func send(_ request: HTTPRequest) async throws -> HTTPStreamingResponse {
        let clock = clock
        // The deadline is read here, once, not when the timer's task first runs (which may be
        // after the head came and the body started).
        let deadline = clock.now.advanced(by: request.timeout)
        return try await withThrowingTaskGroup(of: HTTPStreamingResponse?.self) { group in
            group.addTask { [http] in try await http.send(request) }
            group.addTask {
                try await clock.sleep(until: deadline, tolerance: nil)
                return nil
            }
            defer { group.cancelAll() }
            guard let response = try await group.next() ?? nil else {
                throw ChatStreamError.stalled(after: request.timeout)
            }
            return response
        }
    }

    private func run(_ request: HTTPRequest, into yield: @escaping BoundedBatchYield<Delivery>) async throws {
        let response = try await send(request)
        let head = response.head
        guard head.status == 200 else {
            let bytes = (try? await response.collect(limit: 64 << 10)) ?? []
            let body = (try? JSONReader().parse(bytes)).flatMap(APIErrorBody.readLeniently)
            throw ChatStreamError.forStatus(
                head.status, body: body, retryAfter: ChatStreamError.parseRetryAfter(head.headers["Retry-After"]))
        }
        let contentType = head.headers["Content-Type"]
        guard let format = ChatReplyFormat(contentType: contentType) else {
            throw ChatStreamError.wrongContentType(contentType)
        }
        let watch = StreamStallWatch(clock: clock, timeout: stallTimeout)
        let finished = FinishSeen()
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                var body = response.body.makeAsyncIterator()
                var first: [UInt8] = []
                if format != .events {
                    // No type, `text/plain` or JSON: the first bytes tell a stream from a document.
                    first = try await ChatReplyFormat.firstBytes(of: &body, touch: { watch.touch() })
                }
                if format.readsAsDocument(first) {
                    try await Self.readWholeCompletion(&body, first: first, touch: { watch.touch() }, into: yield)
                    finished.set()
                    return
                }
                let sawDone = try await SSEChatBodyReader.read(
                    &body, first: first, touch: { watch.touch() }, finished: { finished.set() }, into: yield)
                // The body ended without `[DONE]`: complete when the reply said it was finished.
                if !sawDone, !finished.value { throw ChatStreamError.interrupted }
            }
            group.addTask {
                try await watch.waitForStall()
                // A reply that said it was finished and then went silent is complete.
                if finished.value { return }
                throw ChatStreamError.stalled(after: watch.timeout)
            }
            defer { group.cancelAll() }
            try await group.next()
        }
    }

    /// The longest reply read whole (a server that ignored `"stream": true`).
    public static var maximumWholeReply: Int { 16 << 20 }

    /// Reads a whole `chat.completion` document (after `first`, bytes already read from it) and
    /// hands its reply on as one chunk; an error document is ``ChatStreamError/errorFrame(_:)``.
    private static func readWholeCompletion(
        _ body: inout AsyncThrowingStream<[UInt8], any Error>.Iterator, first: [UInt8], touch: () -> Void,
        into yield: BoundedBatchYield<Delivery>
    ) async throws {
        var bytes = first
        while let piece = try await body.next() {
            touch()
            guard piece.count <= maximumWholeReply - bytes.count else {
                throw ChatStreamError.tooLarge(
                    "the reply came as one document over \(maximumWholeReply >> 20) MiB")
            }
            bytes.append(contentsOf: piece)
        }
        let event: OpenAIStreamEvent
        do {
            event = try OpenAIStreamEvent.decodeWholeCompletion(bytes)
        } catch {
            throw ChatStreamError.malformedChunk(String(describing: error))
        }
        switch event {
        case .chunk(let chunk):
            let delivery = ChatChunkDelivery(chunk: chunk, eventID: nil, bytes: bytes.count)
            guard await yield([delivery], max(1, bytes.count)) else { throw CancellationError() }
        case .error(let body):
            throw ChatStreamError.errorFrame(body)
        case .done:
            break
        }
    }
}

/// Whether a chunk of the stream brought a finish reason: set by the reading, read by the stall
/// watch and at the body's end.
private final class FinishSeen: Sendable {
    private let seen = Locked(false)

    /// Whether a finish reason arrived.
    var value: Bool { seen.withLock { $0 } }

    /// Notes that a finish reason arrived.
    func set() { seen.withLock { $0 = true } }
}

extension ChatCompletionChunk: BoundedCost {
    /// Its text and reasoning bytes, plus a little for the rest.
    public var boundedCost: Int { content.utf8.count + reasoning.utf8.count + 64 }
}
