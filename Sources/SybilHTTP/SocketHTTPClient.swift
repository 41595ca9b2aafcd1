#if canImport(Glibc) && canImport(COpenSSL)
    import Foundation
    import Synchronization

    /// ``HTTPClient`` over our own sockets on Linux: HTTP/1.1 on a ``SocketConnection`` (TLS for
    /// `https:`), the response read by ``HTTPResponseParser``. Connections are kept alive: one
    /// whose response was read to its framed end waits in a small per-origin pool
    /// (``SocketConnectionPool``) for the client's next request, so a session's sequential
    /// requests to one server share one TCP connection. A request whose reused connection turns
    /// out closed before any byte of an answer is sent once more on a new connection when that
    /// is safe (`GET`, `HEAD`, or nothing of it sent); a `POST` that may have reached the
    /// server is never sent twice. A long streamed body costs nothing while it is silent: the
    /// connection's thread sleeps in `poll`. (URLSession on Linux keeps a write source on a
    /// streaming socket after the request is sent and spins at full CPU while it waits.)
    ///
    /// Connecting is bounded by the client's connect timeout (at most the request's timeout); a
    /// connection not made in time throws ``HTTPRequestNotSent``, as a refused one does, since
    /// nothing was sent. The request's timeout then bounds the wait for the head, and each
    /// silence in the body, like URLSession's; such a timeout throws ``HTTPTimeout``, as the
    /// request may have reached the server. Redirects are
    /// followed (at most 5) when asked, never from `https:` to `http:`, and without
    /// `Authorization` or `Cookie` once they leave the request's origin. Cancelling the task
    /// that awaits the response, or that consumes the body, closes the connection.
    public final class SocketHTTPClient: HTTPClient {
        /// The most redirects one request follows.
        public static let maximumRedirects = 5
        /// How long a connection may take to be made unless the client is given another bound
        /// (as Go's default transport dials): shorter than a chat request's 60-second wait for
        /// its head, so a server that cannot be reached is told apart from one that is silent.
        public static let defaultConnectTimeout: Duration = .seconds(30)
        private let followRedirects: Bool
        private let connectTimeout: Duration
        private let trustedCertificatesFile: String?
        private let pool: SocketConnectionPool

        /// A client; `followRedirects: false` makes a 3xx the final response;
        /// `trustedCertificatesFile` adds a PEM of certificates to trust for `https:`;
        /// `connectTimeout` bounds the making of each connection (the request's timeout is the
        /// bound when it is shorter).
        public convenience init(
            followRedirects: Bool = true, trustedCertificatesFile: String? = nil,
            connectTimeout: Duration = SocketHTTPClient.defaultConnectTimeout
        ) {
            self.init(
                followRedirects: followRedirects, trustedCertificatesFile: trustedCertificatesFile,
                connectTimeout: connectTimeout, idleClock: ContinuousClock())
        }

        /// A client whose idle connections age on `idleClock` (a test's manual clock).
        public init<C: Clock<Duration>>(
            followRedirects: Bool = true, trustedCertificatesFile: String? = nil,
            connectTimeout: Duration = SocketHTTPClient.defaultConnectTimeout, idleClock: C
        ) {
            self.followRedirects = followRedirects
            self.connectTimeout = connectTimeout
            self.trustedCertificatesFile = trustedCertificatesFile
            pool = SocketConnectionPool(clock: idleClock)
        }

        public func send(_ request: HTTPRequest) async throws -> HTTPStreamingResponse {
            var current = request
            var redirects = 0
            while true {
                var exchange = try await SocketHTTPExchange.start(
                    current, pool: pool, trustedCertificatesFile: trustedCertificatesFile,
                    connectTimeout: connectTimeout)
                let response: HTTPStreamingResponse
                do {
                    response = try await exchange.response()
                } catch  where exchange.mayRetryOnNewConnection(method: current.method) {
                    // The server had closed the idle connection: once more on a new one.
                    exchange = try await SocketHTTPExchange.start(
                        current, pool: pool, reuse: false, trustedCertificatesFile: trustedCertificatesFile,
                        connectTimeout: connectTimeout)
                    response = try await exchange.response()
                }
                guard followRedirects, redirects < Self.maximumRedirects,
                    let next = Self.redirect(from: current, head: response.head)
                else { return response }
                exchange.close()
                redirects += 1
                current = next
            }
        }

        /// The request the 3xx `head` asks for after `request`, or `nil` when it is not followed:
        /// not a redirect, no usable `Location`, or from `https:` to `http:`.
        public static func redirect(from request: HTTPRequest, head: HTTPResponseHead) -> HTTPRequest? {
            guard [301, 302, 303, 307, 308].contains(head.status), let location = head.headers["Location"],
                let target = URL(string: location, relativeTo: request.url)?.absoluteURL,
                let scheme = target.scheme?.lowercased(), scheme == "http" || scheme == "https",
                !(request.url.scheme?.lowercased() == "https" && scheme == "http")
            else { return nil }
            var next = request
            next.url = target
            let keepsMethod = head.status == 307 || head.status == 308
            if !keepsMethod && !(request.method == "GET" || request.method == "HEAD") {
                next.method = "GET"
                next.body = nil
                next.headers.remove("Content-Type")
            }
            if !Self.sameOrigin(request.url, target) {
                for name in ["Authorization", "Cookie", "Proxy-Authorization"] { next.headers.remove(name) }
            }
            return next
        }

        private static func sameOrigin(_ a: URL, _ b: URL) -> Bool {
            a.scheme?.lowercased() == b.scheme?.lowercased() && a.host?.lowercased() == b.host?.lowercased()
                && SocketHTTPExchange.port(of: a) == SocketHTTPExchange.port(of: b)
        }
    }
#endif
