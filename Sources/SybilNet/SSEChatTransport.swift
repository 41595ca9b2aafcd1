import Foundation
import SybilCore
import SybilWire
import Synchronization

/// The transport layer of chat streaming (SPEC §5.2): sends the request, maps every HTTP
/// status to a distinct ``ChatStreamError`` that keeps the server's body and `Retry-After`,
/// insists on `text/event-stream`, feeds the body to the event-stream parser, and yields chat
/// chunks until `data: [DONE]`. An `error` frame is a failure; a stream that ends without
/// `[DONE]` is ``ChatStreamError/interrupted``; no bytes for `stallTimeout` is
/// ``ChatStreamError/stalled(after:)``. Cancelling the consumer cancels the request.
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

    /// Streams the chunks of the reply to `request`.
    public func chunks(for request: HTTPRequest) -> AsyncThrowingStream<ChatCompletionChunk, any Error> {
        let (stream, continuation) = AsyncThrowingStream<ChatCompletionChunk, any Error>.makeStream()
        let task = Task {
            do {
                try await run(request, into: continuation)
                continuation.finish()
            } catch let error as ChatStreamError {
                continuation.finish(throwing: error)
            } catch is CancellationError {
                continuation.finish(throwing: CancellationError())
            } catch {
                continuation.finish(throwing: ChatStreamError.transport(String(describing: error)))
            }
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }

    private func run(
        _ request: HTTPRequest, into continuation: AsyncThrowingStream<ChatCompletionChunk, any Error>.Continuation
    ) async throws {
        let response = try await http.send(request)
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
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                try await Self.consume(response.body, watch: watch, into: continuation)
            }
            group.addTask {
                try await watch.waitForStall()
                throw ChatStreamError.stalled(after: watch.timeout)
            }
            defer { group.cancelAll() }
            try await group.next()
        }
    }

    private static func consume(
        _ body: AsyncThrowingStream<[UInt8], any Error>, watch: StreamStallWatch<C>,
        into continuation: AsyncThrowingStream<ChatCompletionChunk, any Error>.Continuation
    ) async throws {
        var parser = EventStreamParser()
        do {
            for try await bytes in body {
                watch.touch()
                for event in parser.feed(bytes) {
                    let decoded: OpenAIStreamEvent
                    do {
                        decoded = try OpenAIStreamEvent.decode(event)
                    } catch {
                        throw ChatStreamError.malformedChunk(String(describing: error))
                    }
                    switch decoded {
                    case .chunk(let chunk): continuation.yield(chunk)
                    case .done: return
                    case .error(let body): throw ChatStreamError.errorFrame(body)
                    }
                }
            }
        } catch let error as ChatStreamError {
            throw error
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            if Task.isCancelled { throw CancellationError() }
            throw ChatStreamError.transport(String(describing: error))
        }
        throw ChatStreamError.interrupted
    }
}
