import SybilCore
import SybilWire

/// Why a call to the Agent room failed. The server's code, message, details (quota,
/// `limitBytes`) and `Retry-After` survive, so a person sees what happened and what to do.
/// Messages never hold a token or a message body.
public enum AgentRoomError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The server answered with an error status and (usually) an error body.
    case rejected(status: Int, error: APIErrorBody, retryAfterSeconds: Int?)
    /// The request did not complete (reset, timed out, cut off): the outcome is unknown.
    case transport(String)
    /// No connection was made (refused, a name that does not resolve, TLS refused, or not
    /// within the connect timeout), so nothing was written: the server has not seen it.
    case notSent(String)
    /// The answer broke the contract; the text names the JSON path.
    case malformedAnswer(String)
    /// The server answered with a redirect, which is never followed.
    case redirectRefused(status: Int)
    /// Downloaded bytes do not match the descriptor's size or SHA-256.
    case integrity(String)

    /// The HTTP status, when the server answered.
    public var status: Int? {
        switch self {
        case .rejected(let status, _, _), .redirectRefused(let status): status
        case .transport, .notSent, .malformedAnswer, .integrity: nil
        }
    }

    /// The server's machine-readable code, e.g. `quota_exceeded`.
    public var code: String? {
        if case .rejected(_, let error, _) = self { error.code } else { nil }
    }

    /// Seconds to wait before trying again (`Retry-After`, else `details.retryAfterSeconds`).
    public var retryAfterSeconds: Int? {
        guard case .rejected(_, let error, let header) = self else { return nil }
        if let header { return header }
        if case .number(let number)? = error.details?["retryAfterSeconds"], let seconds = number.int64Value {
            return Int(clamping: max(0, min(seconds, 86_400)))
        }
        return nil
    }

    /// The quota snapshot a `507` carries (`details.quota`).
    public var quota: AgentQuota? {
        guard case .rejected(_, let error, _) = self, let value = error.details?["quota"] else { return nil }
        return try? AgentQuota.decode(value, at: .root)
    }

    /// The limit a `413` names (`details.limitBytes`).
    public var limitBytes: Int64? {
        guard case .rejected(_, let error, _) = self, case .number(let number)? = error.details?["limitBytes"] else {
            return nil
        }
        return number.int64Value
    }

    /// Whether the outcome of a submission is unknown: the request may or may not have been
    /// stored (no answer, or a 5xx other than the open-proxy 503). Only a canonical echo or a
    /// retry with the same request id settles it.
    public var isAmbiguous: Bool {
        switch self {
        case .transport, .malformedAnswer: true
        case .rejected(let status, _, _): status >= 500 && status != 503 && status != 507
        case .notSent, .redirectRefused, .integrity: false
        }
    }

    /// Whether sending the same request again can never succeed (a 4xx other than 401/408/429).
    public var isFinalRefusal: Bool {
        guard case .rejected(let status, _, _) = self else { return false }
        return (400..<500).contains(status) && ![401, 408, 429].contains(status)
    }

    /// Whether attachments are unavailable now (503 `open_proxy_unavailable`); text still works.
    public var isAttachmentsUnavailable: Bool {
        if case .rejected(503, let error, _) = self { error.code == "open_proxy_unavailable" } else { false }
    }

    /// One sentence for a person.
    public var description: String {
        switch self {
        case .rejected(let status, let error, _):
            var text = "\(error.message) (HTTP \(status)"
            if let code = error.code { text += ", \(code)" }
            text += ")"
            if let quota { text += " — \(quota.usedBytes) of \(quota.limitBytes) bytes used" }
            if let retryAfterSeconds { text += " — try again in \(retryAfterSeconds) s" }
            return text
        case .transport(let reason), .notSent(let reason): return "The Agent room could not be reached: \(reason)"
        case .malformedAnswer(let reason): return "The Agent room's answer broke the contract: \(reason)"
        case .redirectRefused(let status):
            return "The server answered with a redirect (HTTP \(status)); it is not followed."
        case .integrity(let reason): return "The download is not the original: \(reason)"
        }
    }

    /// The error for a non-2xx answer with `body` (an error body when it decodes).
    public static func from(status: Int, body: [UInt8], retryAfter: String?) -> AgentRoomError {
        if (300..<400).contains(status) { return .redirectRefused(status: status) }
        let decoded = (try? JSONReader().parse(body)).flatMap { try? APIErrorBody.decode($0, at: .root) }
        let error = decoded ?? APIErrorBody(message: "HTTP \(status) without an error body.")
        let seconds = retryAfter.flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }.map {
            max(0, min($0, 86_400))
        }
        return .rejected(status: status, error: error, retryAfterSeconds: seconds)
    }
}
