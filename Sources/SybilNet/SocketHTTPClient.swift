#if canImport(Glibc) && canImport(COpenSSL)
    import Foundation
    import SybilWire
    import Synchronization

    #if canImport(FoundationNetworking)
        import FoundationNetworking
    #endif

    /// ``HTTPClient`` over our own sockets on Linux: HTTP/1.1 on a ``SocketConnection`` (TLS for
    /// `https:`), one connection per request (`Connection: close`), the response read by
    /// ``HTTPResponseParser``. A long streamed body costs nothing while it is silent: the
    /// connection's thread sleeps in `poll`. (URLSession on Linux keeps a write source on a
    /// streaming socket after the request is sent and spins at full CPU while it waits.)
    ///
    /// The request's timeout bounds connecting and the wait for the head, and then each silence
    /// in the body, like URLSession's; a timeout throws `URLError(.timedOut)`. Redirects are
    /// followed (at most 5) when asked, never from `https:` to `http:`, and without
    /// `Authorization` or `Cookie` once they leave the request's origin. Cancelling the task
    /// that awaits the response, or that consumes the body, closes the connection.
    public final class SocketHTTPClient: HTTPClient {
        /// The most redirects one request follows.
        public static let maximumRedirects = 5
        private let followRedirects: Bool
        private let trustedCertificatesFile: String?

        /// A client; `followRedirects: false` makes a 3xx the final response;
        /// `trustedCertificatesFile` adds a PEM of certificates to trust for `https:`.
        public init(followRedirects: Bool = true, trustedCertificatesFile: String? = nil) {
            self.followRedirects = followRedirects
            self.trustedCertificatesFile = trustedCertificatesFile
        }

        public func send(_ request: HTTPRequest) async throws -> HTTPStreamingResponse {
            var current = request
            var redirects = 0
            while true {
                let exchange = try await SocketHTTPExchange.start(
                    current, trustedCertificatesFile: trustedCertificatesFile)
                let response = try await exchange.response()
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
