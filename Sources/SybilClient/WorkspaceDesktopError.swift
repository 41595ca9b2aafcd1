import SybilCore
import SybilWire

/// Why a call to the desktop failed, one case per thing a person or the outbox does
/// differently. Messages are the server's (never a token, never a message body).
public enum WorkspaceDesktopError: Error, Sendable, Hashable, CustomStringConvertible {
    /// `503`: the desktop is offline; try again after `retryAfterSeconds` when given.
    case desktopOffline(message: String, retryAfterSeconds: Int?)
    /// `409`: a call key was reused with other params, or the call conflicts with state.
    case conflict(message: String)
    /// `413`: the request was too large.
    case tooLarge(message: String)
    /// `404`: the desktop, project, session, thread, run or method is unknown.
    case notFound(message: String)
    /// `401` after the token chain could not renew the token.
    case unauthorized(message: String)
    /// Another `4xx`: the request broke a rule (`param` names the member).
    case invalidRequest(status: Int, message: String, param: String?)
    /// Another `5xx`.
    case server(status: Int, message: String)
    /// The request did not complete (connection refused, reset, timed out).
    case transport(String)
    /// The answer broke the contract; the text names the JSON path.
    case malformedAnswer(String)

    /// Whether the desktop refused the call for good: sending it again, with the same ids,
    /// can never succeed (the outbox treats it as a final rejection).
    public var isFinalRefusal: Bool {
        switch self {
        case .conflict, .tooLarge, .notFound, .invalidRequest: true
        case .desktopOffline, .unauthorized, .server, .transport, .malformedAnswer: false
        }
    }

    /// One sentence for a person.
    public var description: String {
        switch self {
        case .desktopOffline(let message, let retryAfter):
            retryAfter.map { "\(message) (retry in \($0) s)" } ?? message
        case .conflict(let message), .tooLarge(let message), .notFound(let message), .unauthorized(let message):
            message
        case .invalidRequest(let status, let message, let param):
            param.map { "\(message) (HTTP \(status), \($0))" } ?? "\(message) (HTTP \(status))"
        case .server(let status, let message): "The desktop failed (HTTP \(status)): \(message)"
        case .transport(let reason): "The desktop could not be reached: \(reason)"
        case .malformedAnswer(let reason): "The desktop's answer broke the contract: \(reason)"
        }
    }

    /// The error for a non-2xx answer with `body` (an error body when it decodes).
    static func from(status: Int, body: [UInt8], retryAfter: String?) -> WorkspaceDesktopError {
        let decoded = (try? JSONReader().parse(body)).flatMap { try? APIErrorBody.decode($0, at: .root) }
        let message = decoded?.message ?? "HTTP \(status) without an error body."
        switch status {
        case 503:
            return .desktopOffline(
                message: message, retryAfterSeconds: retryAfter.flatMap { Int($0) }.map { max(0, min($0, 86_400)) })
        case 409: return .conflict(message: message)
        case 413: return .tooLarge(message: message)
        case 404: return .notFound(message: message)
        case 401: return .unauthorized(message: message)
        case 400..<500: return .invalidRequest(status: status, message: message, param: decoded?.param)
        default: return .server(status: status, message: message)
        }
    }
}
