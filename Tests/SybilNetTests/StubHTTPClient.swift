import SybilCore
import SybilHTTP
import SybilTesting
import Testing

/// An HTTP client whose responses the test writes: each `send` takes the next scripted head
/// and gets a body the test feeds through `body(at:)`. Unexpected requests fail the test.
final class StubHTTPClient: HTTPClient {
    struct Scripted: Sendable {
        var head: HTTPResponseHead
        var body: AsyncThrowingStream<[UInt8], any Error>
        var feed: AsyncThrowingStream<[UInt8], any Error>.Continuation
    }

    private struct State {
        var scripted: [Scripted] = []
        var requests: [HTTPRequest] = []
        var feeds: [AsyncThrowingStream<[UInt8], any Error>.Continuation] = []
        var cancelled: [Int] = []
    }

    private let state = Locked(State())
    /// Notified when a request is sent or a body is cancelled.
    let changed = ChangeSignal()

    var requests: [HTTPRequest] { state.withLock { $0.requests } }
    var cancelledRequests: [Int] { state.withLock { $0.cancelled } }

    /// Scripts the next response; returns the index of its body feed.
    @discardableResult
    func respond(status: Int, headers: [(String, String)] = [], body: String? = nil) -> Int {
        let (stream, feed) = AsyncThrowingStream<[UInt8], any Error>.makeStream()
        if let body {
            feed.yield(Array(body.utf8))
            feed.finish()
        }
        return state.withLock { state in
            let index = state.feeds.count
            feed.onTermination = { [weak self] termination in
                guard case .cancelled = termination, let self else { return }
                self.state.withLock { $0.cancelled.append(index) }
                self.changed.notify()
            }
            state.scripted.append(
                Scripted(
                    head: HTTPResponseHead(status: status, headers: HTTPHeaders(headers)), body: stream, feed: feed))
            state.feeds.append(feed)
            return index
        }
    }

    /// The body feed of scripted response `index`.
    func body(_ index: Int) -> AsyncThrowingStream<[UInt8], any Error>.Continuation {
        state.withLock { $0.feeds[index] }
    }

    func send(_ request: HTTPRequest) async throws -> HTTPStreamingResponse {
        let next = state.withLock { state -> Scripted? in
            state.requests.append(request)
            return state.scripted.isEmpty ? nil : state.scripted.removeFirst()
        }
        changed.notify()
        guard let next else {
            Issue.record("unexpected request \(request.method) \(request.url)")
            throw StubError.unexpected
        }
        return HTTPStreamingResponse(head: next.head, body: next.body)
    }

    enum StubError: Error { case unexpected }
}

let sseHeaders = [("Content-Type", "text/event-stream; charset=utf-8")]

func chunkEvent(_ content: String, id: String = "c1") -> String {
    #"data: {"id":"\#(id)","choices":[{"index":0,"delta":{"content":"\#(content)"},"finish_reason":null}]}"# + "\n\n"
}
