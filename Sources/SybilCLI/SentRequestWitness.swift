import SybilCore
import SybilHTTP

/// The HTTP client `sybil ask` streams through, watching whether any request may have reached
/// the server: one that got a response head, or failed in any other way than
/// ``HTTPRequestNotSent`` (no connection was made — refused, unresolved, TLS refused, or not
/// within the connect timeout — so nothing was written). When none did, the question
/// never left the machine and `ask` takes its attempt back out of the history.
final class SentRequestWitness: HTTPClient {
    private let inner: any HTTPClient
    private let reached = Locked(false)

    init(_ inner: any HTTPClient) {
        self.inner = inner
    }

    /// Whether a request may have reached the server (`false` only when every one provably did not).
    var mayHaveReachedServer: Bool { reached.withLock { $0 } }

    func send(_ request: HTTPRequest) async throws -> HTTPStreamingResponse {
        do {
            let response = try await inner.send(request)
            reached.withLock { $0 = true }
            return response
        } catch let error as HTTPRequestNotSent {
            throw error
        } catch {
            // Unknown: the request may have been written before this failure.
            reached.withLock { $0 = true }
            throw error
        }
    }
}
