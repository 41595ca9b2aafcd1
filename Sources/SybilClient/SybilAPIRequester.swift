import SybilCore
import SybilHTTP
import SybilNet

/// The request loop the Sybil API clients share (the Agent room, records): the current bearer
/// token, one renewal on `401`, a `2xx` answer handed back with its body unread, any other status
/// (a `3xx` included: redirects are never followed) turned into the client's own error from its
/// status, bounded error body and headers; and answers read bounded and decoded strictly.
///
/// Generic over the client's error type `Failure`, which says how to name a transport failure, a
/// malformed answer and a refused status.
struct SybilAPIRequester<Failure: Error>: Sendable {
    /// One request: method, route segments, query and body.
    struct Call {
        var method: String
        var route: [String]
        var query: [(String, String)] = []
        var contentType: String?
        var body: [UInt8]?
        var accept = "application/json"

        /// `GET agent/messages`, for error messages (never the body).
        var name: String { "\(method) \(route.joined(separator: "/"))" }
    }

    let base: AgentAPIBase
    let http: any HTTPClient
    let tokens: TokenProvider
    let timeout: Duration
    /// The largest error body read.
    let maximumErrorBytes: Int
    /// A transport failure (`what` already names the call).
    let transport: @Sendable (_ what: String) -> Failure
    /// An answer that breaks the contract (`what` already names the call).
    let malformed: @Sendable (_ what: String) -> Failure
    /// A refused status, from its error body (at most `maximumErrorBytes`) and headers.
    let refused: @Sendable (_ status: Int, _ body: [UInt8], _ headers: HTTPHeaders) -> Failure
    /// A request that provably never left: no connection was made (``HTTPRequestNotSent``).
    /// `nil`: such a failure is a ``transport`` failure like any other.
    var notSent: (@Sendable (_ what: String) -> Failure)? = nil

    /// Sends `call` and decodes its answer strictly with `decode`, reading at most `maximumBytes`
    /// with JSON nesting up to `maximumDepth`.
    func json<T>(
        _ call: Call, maximumBytes: Int, maximumDepth: Int, _ decode: (JSONValue, JSONPath) throws(JSONError) -> T
    ) async throws(Failure) -> T {
        let response = try await send(call)
        let bytes: [UInt8]
        do {
            bytes = try await response.collect(limit: maximumBytes + 1)
        } catch {
            throw transport("\(call.name): the answer broke off: \(error)")
        }
        guard bytes.count <= maximumBytes else {
            throw malformed("\(call.name): the answer is larger than \(maximumBytes) bytes")
        }
        do {
            let value = try JSONReader(limits: JSONReader.Limits(maxDepth: maximumDepth, maxBytes: maximumBytes))
                .parse(bytes)
            return try decode(value, .root)
        } catch {
            throw malformed("\(call.name): \(error)")
        }
    }

    /// Sends `call` with the current token; on `401` renews the token once and sends it again.
    /// Returns a `2xx` answer with its body still to read; every other status is thrown.
    func send(_ call: Call) async throws(Failure) -> HTTPStreamingResponse {
        var token: String?
        do {
            token = try await tokens.token()
        } catch {
            throw transport("the sign-in token could not be read: \(error)")
        }
        var renewed = false
        while true {
            var headers = HTTPHeaders([("Accept", call.accept)])
            if let contentType = call.contentType { headers.set("Content-Type", contentType) }
            if let token { headers.set("Authorization", "Bearer \(token)") }
            let request = HTTPRequest(
                method: call.method, url: base.url(call.route, query: call.query), headers: headers, body: call.body,
                timeout: timeout)
            let response: HTTPStreamingResponse
            do {
                response = try await http.send(request)
            } catch is CancellationError {
                throw transport("\(call.name) was cancelled")
            } catch let error as HTTPRequestNotSent {
                throw (notSent ?? transport)("\(call.name): \(error)")
            } catch {
                throw transport("\(call.name): \(error)")
            }
            let status = response.head.status
            if (200..<300).contains(status) { return response }
            let body = (try? await response.collect(limit: maximumErrorBytes)) ?? []
            let error = refused(status, body, response.head.headers)
            if status == 401, !renewed {
                renewed = true
                // A token that cannot be renewed leaves the server's own 401 as the answer.
                guard let fresh = try? await tokens.refresh() else { throw error }
                token = fresh
                continue
            }
            throw error
        }
    }
}
