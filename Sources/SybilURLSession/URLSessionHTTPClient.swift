import Foundation
import SybilCore
import SybilHTTP

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// ``HTTPClient`` over URLSession, on Linux (FoundationNetworking) and Apple platforms. Bodies
/// stream through a data delegate (Linux has no `bytes(for:)`): each chunk is handed on as it
/// arrives. Cancelling the task that awaits the response, or that consumes the body, cancels
/// the request.
public final class URLSessionHTTPClient: HTTPClient {
    private let session: URLSession
    private let delegate: StreamingDelegate

    /// A client over a new session with `configuration` (ephemeral by default: no cookies or
    /// cache on disk). `followRedirects: false` makes a 3xx the final response.
    public init(configuration: URLSessionConfiguration = .ephemeral, followRedirects: Bool = true) {
        delegate = StreamingDelegate(followRedirects: followRedirects)
        session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: nil)
    }

    deinit {
        session.finishTasksAndInvalidate()
    }

    public func send(_ request: HTTPRequest) async throws -> HTTPStreamingResponse {
        var urlRequest = URLRequest(url: request.url)
        urlRequest.httpMethod = request.method
        for field in request.headers { urlRequest.addValue(field.value, forHTTPHeaderField: field.name) }
        urlRequest.httpBody = request.body.map { Data($0) }
        urlRequest.timeoutInterval =
            Double(request.timeout.components.seconds)
            + Double(request.timeout.components.attoseconds) * 1e-18
        let task = session.dataTask(with: urlRequest)
        let delegate = delegate
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let (body, bodyContinuation) = AsyncThrowingStream<[UInt8], any Error>.makeStream()
                bodyContinuation.onTermination = { termination in
                    if case .cancelled = termination { task.cancel() }
                }
                delegate.register(task, head: continuation, body: body, bodyContinuation: bodyContinuation)
                task.resume()
            }
        } onCancel: {
            task.cancel()
        }
    }
}

/// Routes URLSession's delegate callbacks to the waiting request. Its state is behind a
/// `Locked`, and URLSession calls it on its own serial delegate queue, so it is safe to share
/// (hence `@unchecked Sendable`: NSObject subclasses cannot be checked).
final class StreamingDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    private struct Pending {
        var head: CheckedContinuation<HTTPStreamingResponse, any Error>?
        var body: AsyncThrowingStream<[UInt8], any Error>
        var bodyContinuation: AsyncThrowingStream<[UInt8], any Error>.Continuation
    }

    private let pending = Locked<[Int: Pending]>([:])
    private let followRedirects: Bool

    init(followRedirects: Bool) {
        self.followRedirects = followRedirects
    }

    func register(
        _ task: URLSessionTask, head: CheckedContinuation<HTTPStreamingResponse, any Error>,
        body: AsyncThrowingStream<[UInt8], any Error>,
        bodyContinuation: AsyncThrowingStream<[UInt8], any Error>.Continuation
    ) {
        pending.withLock {
            $0[task.taskIdentifier] = Pending(head: head, body: body, bodyContinuation: bodyContinuation)
        }
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        let waiting = pending.withLock {
            state -> (CheckedContinuation<HTTPStreamingResponse, any Error>, AsyncThrowingStream<[UInt8], any Error>)?
            in
            guard let entry = state[dataTask.taskIdentifier], let head = entry.head else { return nil }
            state[dataTask.taskIdentifier]?.head = nil
            return (head, entry.body)
        }
        completionHandler(.allow)
        guard let (head, body) = waiting else { return }
        let http = response as? HTTPURLResponse
        var headers = HTTPHeaders()
        for (name, value) in http?.allHeaderFields ?? [:] {
            headers.set(String(describing: name), String(describing: value))
        }
        head.resume(
            returning: HTTPStreamingResponse(
                head: HTTPResponseHead(status: http?.statusCode ?? 0, headers: headers), body: body))
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let continuation = pending.withLock { $0[dataTask.taskIdentifier]?.bodyContinuation }
        continuation?.yield([UInt8](data))
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        guard let entry = pending.withLock({ $0.removeValue(forKey: task.taskIdentifier) }) else { return }
        if let head = entry.head {
            head.resume(throwing: error ?? URLError(.badServerResponse))
        }
        if let error {
            entry.bodyContinuation.finish(throwing: error)
        } else {
            entry.bodyContinuation.finish()
        }
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        completionHandler(followRedirects ? request : nil)
    }
}
