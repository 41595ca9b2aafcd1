/// What a client does with a redirect (a 3xx with a `Location`).
public enum HTTPRedirects: Sendable, Hashable {
    /// Refused: the request throws ``HTTPRedirectRefused`` naming the target, and nothing is
    /// sent there. What every Sybil client path uses: a chat's question, a token or an upload
    /// never goes to an address the user did not choose.
    case refuse
    /// The 3xx is the final response, for callers that map it to an error of their own.
    case deliver

    /// `client`, which must deliver redirects, with this policy: wrapped so that a 3xx throws
    /// ``HTTPRedirectRefused`` (``refuse``), or as it is (``deliver``).
    public func applied(to client: any HTTPClient) -> any HTTPClient {
        switch self {
        case .refuse: RedirectRefusingHTTPClient(inner: client)
        case .deliver: client
        }
    }
}

/// The server answered with a redirect, which is not followed.
public struct HTTPRedirectRefused: Error, Sendable, Hashable, CustomStringConvertible {
    /// The redirect's status (301, 302, 303, 307 or 308).
    public var status: Int
    /// Where the server pointed, as it said it (`nil` without a `Location`).
    public var location: String?

    /// A refusal of the redirect `status` to `location`.
    public init(status: Int, location: String?) {
        self.status = status
        self.location = location
    }

    /// One sentence naming the target and what to do.
    public var description: String {
        guard let location else {
            return "the server answered with a redirect (HTTP \(status)) without a target; it is not followed"
        }
        return "the server redirected to \(location.debugDescription) (HTTP \(status)), which is not followed;"
            + " if that address is right, use it as the server's address"
    }
}

/// Refuses redirects for ``inner``, which must deliver them (``HTTPRedirects/deliver``): a 3xx
/// answer is closed and thrown as ``HTTPRedirectRefused``.
struct RedirectRefusingHTTPClient: HTTPClient {
    let inner: any HTTPClient

    func send(_ request: HTTPRequest) async throws -> HTTPStreamingResponse {
        let response = try await inner.send(request)
        let status = response.head.status
        guard (300..<400).contains(status), status != 304 else { return response }
        // The body is not read: dropping the response closes the connection.
        throw HTTPRedirectRefused(status: status, location: response.head.headers["Location"].map(Self.printable))
    }

    /// A `Location` as it may be shown: at most 200 characters, control characters escaped.
    static func printable(_ location: String) -> String {
        let clipped = location.unicodeScalars.prefix(200)
        var text = ""
        for scalar in clipped {
            if scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) {
                text += "\\u{\(String(scalar.value, radix: 16))}"
            } else {
                text.unicodeScalars.append(scalar)
            }
        }
        return location.unicodeScalars.count > 200 ? text + "…" : text
    }
}
