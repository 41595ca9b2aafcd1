import SybilCore
import SybilWire

/// Why a web search failed. Messages never hold a token; the server's text is made safe for
/// a terminal by whoever prints it.
public enum WebSearchError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The server has no web-search route (`404`, or `405` from a server whose path means
    /// something else): a plain OpenAI-compatible server.
    case notOffered
    /// The server answered with an error status and (usually) an error body.
    case rejected(status: Int, error: APIErrorBody)
    /// The request did not complete (refused, reset, timed out).
    case transport(String)
    /// The answer broke the contract; the text names the JSON path.
    case malformedAnswer(String)
    /// The server answered with a redirect, which is never followed.
    case redirectRefused(status: Int)

    /// The error for a refused status and its body (a generic one when the body is not an
    /// error body).
    static func from(status: Int, body: [UInt8]) -> WebSearchError {
        if status == 404 || status == 405 { return .notOffered }
        if (300..<400).contains(status) { return .redirectRefused(status: status) }
        let decoded = (try? JSONReader().parse(body)).flatMap { try? APIErrorBody.decode($0, at: .root) }
        return .rejected(
            status: status, error: decoded ?? APIErrorBody(message: "HTTP \(status) without an error body."))
    }

    /// One sentence for a person.
    public var description: String {
        switch self {
        case .notOffered:
            "the server has no web-search route (POST v1/web-search); use a Sybil server (`sybil serve`) for it"
        case .rejected(let status, let error): "the server refused the web search (HTTP \(status)): \(error.message)"
        case .transport(let reason): "the server could not be reached: \(reason)"
        case .malformedAnswer(let reason): "the server's answer broke the web-search contract: \(reason)"
        case .redirectRefused(let status):
            "the server answered with a redirect (HTTP \(status)), which is not followed"
        }
    }
}
