import Foundation
import SybilCore
import SybilHTTP
import SybilWire
import Synchronization

/// The transport layer of chat streaming (SPEC §5.2): sends the request, maps every HTTP
/// status to a distinct ``ChatStreamError`` that keeps the server's body and `Retry-After`,
/// insists on `text/event-stream`, feeds the body to the event-stream parser, and yields chat
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
    public struct Delivery: Sendable, Hashable {
        /// The chunk.
        public var chunk: ChatCompletionChunk
        /// The event's id when the server numbers its events (a decimal `id:`), else `nil`.
        public var eventID: Int64?
        /// The bytes of the event it came in (what it costs a bounded stream).
        public var bytes: Int

        /// Creates a delivery.
        public init(chunk: ChatCompletionChunk, eventID: Int64?, bytes: Int = 256) {
            self.chunk = chunk
            self.eventID = eventID
            self.bytes = bytes
        }
    }

    /// Streams the chunks of the reply to `request`.
    public func chunks(for request: HTTPRequest) -> AsyncThrowingStream<ChatCompletionChunk, any Error> {
        stream(for: request) { $0.chunk }
    }

    /// Streams the chunks of the reply to `request` with their event ids. Bounded: while the
    /// consumer is behind by ``BoundedStream/defaultLimit`` bytes of events, the body is not
    /// read, and TCP slows the server. The chunks of one read of the body are handed over
    /// together (``BoundedStream/makeFlattening(limit:_:)``), not one task hand-off each.
    public func deliveries(for request: HTTPRequest) -> AsyncThrowingStream<Delivery, any Error> {
        stream(for: request) { $0 }
    }

    /// The reply to `request` as what `form` makes of each delivery, with the errors mapped.
    private func stream<Element: BoundedCost>(
        for request: HTTPRequest, _ form: @escaping @Sendable (Delivery) -> Element
    ) -> AsyncThrowingStream<Element, any Error> {
        BoundedStream.makeFlattening { yield in
            do {
                try await run(request, form: form, into: yield)
            } catch let error as ChatStreamError {
                throw error
            } catch is CancellationError {
                throw CancellationError()
            } catch let refusal as HTTPRedirectRefused {
                throw ChatStreamError.redirected(refusal)
            } catch let error as URLError where error.code == .timedOut {
                throw ChatStreamError.stalled(after: request.timeout)
            } catch {
                throw ChatStreamError.transport(String(describing: error))
            }
        }
    }

    /// The response head, or ``ChatStreamError/stalled(after:)`` when none came within the
    /// request's timeout on the injected clock.
    private func send(_ request: HTTPRequest) async throws -> HTTPStreamingResponse {
        let clock = clock
        return try await withThrowingTaskGroup(of: HTTPStreamingResponse?.self) { group in
            group.addTask { [http] in try await http.send(request) }
            group.addTask {
                try await clock.sleep(for: request.timeout)
                return nil
            }
            defer { group.cancelAll() }
            guard let response = try await group.next() ?? nil else {
                throw ChatStreamError.stalled(after: request.timeout)
            }
            return response
        }
    }

    private func run<Element: BoundedCost>(
        _ request: HTTPRequest, form: @escaping @Sendable (Delivery) -> Element,
        into yield: @escaping BoundedYield<[Element]>
    ) async throws {
        let response = try await send(request)
        let head = response.head
        guard head.status == 200 else {
            let bytes = (try? await response.collect(limit: 64 << 10)) ?? []
            let body = (try? JSONReader().parse(bytes)).flatMap { try? APIErrorBody.decode($0, at: .root) }
            throw ChatStreamError.forStatus(
                head.status, body: body, retryAfter: ChatStreamError.parseRetryAfter(head.headers["Retry-After"]))
        }
        let contentType = head.headers["Content-Type"]
        guard let contentType, contentType.lowercased().hasPrefix("text/event-stream") else {
            throw ChatStreamError.wrongContentType(contentType)
        }
        let watch = StreamStallWatch(clock: clock, timeout: stallTimeout)
        let finished = FinishSeen()
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                try await Self.consume(response.body, watch: watch, finished: finished, form: form, into: yield)
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

    private static func consume<Element: BoundedCost>(
        _ body: AsyncThrowingStream<[UInt8], any Error>, watch: StreamStallWatch<C>, finished: FinishSeen,
        form: (Delivery) -> Element, into yield: BoundedYield<[Element]>
    ) async throws {
        var parser = EventStreamParser()
        // One chunk decoder and one event list for the stream: their buffers are reused.
        var decoder = ChatCompletionChunkDecoder()
        var events: [ServerSentEvent] = []
        do {
            for try await bytes in body {
                watch.touch()
                // The events completed before a limit was passed are handed on first, so what
                // arrives does not depend on how the bytes were split into reads.
                events.removeAll(keepingCapacity: true)
                var refusal: EventStreamParser.LimitExceeded?
                do throws(EventStreamParser.LimitExceeded) {
                    try parser.feed(bytes) { events.append($0) }
                } catch {
                    refusal = error
                }
                // The chunks before the end, an error frame or a malformed event are handed on
                // first, as they would be one at a time.
                var batch: [Element] = []
                var ending: Ending?
                for event in events {
                    let decoded: OpenAIStreamEvent
                    do {
                        decoded = try OpenAIStreamEvent.decode(event, using: &decoder)
                    } catch {
                        ending = .failed(ChatStreamError.malformedChunk(String(describing: error)))
                        break
                    }
                    switch decoded {
                    case .chunk(let chunk):
                        if chunk.finishReason != nil { finished.set() }
                        batch.append(
                            form(
                                Delivery(
                                    chunk: chunk, eventID: Self.eventID(event.lastEventId), bytes: event.dataBytes.count
                                )))
                        continue
                    case .done: ending = .done
                    case .error(let body): ending = .failed(ChatStreamError.errorFrame(body))
                    }
                    break
                }
                if !batch.isEmpty {
                    // Waiting for the consumer is not the server's silence.
                    guard await yield(batch) else { throw CancellationError() }
                    watch.touch()
                }
                switch ending {
                case .done?: return
                case .failed(let error)?: throw error
                case nil: break
                }
                // Reading stops here: dropping the body closes the connection.
                if let refusal { throw ChatStreamError.tooLarge(refusal.description) }
            }
        } catch let error as ChatStreamError {
            throw error
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            if Task.isCancelled { throw CancellationError() }
            throw ChatStreamError.transport(String(describing: error))
        }
        // The body ended without `[DONE]`: complete when the reply said it was finished.
        if !finished.value { throw ChatStreamError.interrupted }
    }

    /// How a read's events ended the stream early.
    private enum Ending {
        /// `data: [DONE]`.
        case done
        /// An error frame or a malformed event.
        case failed(ChatStreamError)
    }

    /// A decimal event id (at most 18 digits), else `nil`.
    static func eventID(_ text: String) -> Int64? {
        guard !text.isEmpty, text.utf8.count <= 18, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else {
            return nil
        }
        return Int64(text)
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

extension SSEChatTransport.Delivery: BoundedCost {
    /// The bytes of its event.
    public var boundedCost: Int { bytes }
}

extension ChatCompletionChunk: BoundedCost {
    /// Its text and reasoning bytes, plus a little for the rest.
    public var boundedCost: Int { content.utf8.count + reasoning.utf8.count + 64 }
}
