import Foundation
import SybilCore
import SybilHTTP

/// How a forwarding server answers for its upstream (docs/api/chats.md, "Upstream errors"):
/// only a `200` JSON answer and a well-formed `4xx` error are relayed; every other upstream
/// answer or failure becomes one of this server's own errors in the shared error body, so a
/// client never sees an upstream redirect, informational or out-of-range status, an HTML error
/// page, the upstream's `401` taken for its own, or platform error text naming the upstream.
enum UpstreamAnswer {
    /// The largest upstream answer relayed whole (errors, whole completions, model lists).
    static let maximumBodyBytes = 1 << 20
    /// The longest `Retry-After` relayed from an upstream `429`, in seconds.
    static let maximumRetryAfterSeconds = 3600

    /// A whole (not streamed) `POST v1/chat/completions` to the upstream at `base` for `model`
    /// with `messages`, the upstream `key` as a bearer token when there is one; what the Agent
    /// room's and the web search's upstream answers send.
    static func completionRequest(base: URL, model: String, key: String?, messages: [JSONValue]) -> HTTPRequest {
        let body: JSONValue = ["model": .string(model), "messages": .array(messages), "stream": false]
        var headers = HTTPHeaders([("Content-Type", "application/json"), ("Accept", "application/json")])
        if let key { headers.set("Authorization", "Bearer \(key)") }
        return HTTPRequest(
            method: "POST", url: APIEndpoint.url(base: base, path: "v1/chat/completions"), headers: headers,
            body: JSONWriter().bytes(from: body), timeout: .seconds(120))
    }

    /// The answer for a whole upstream response: `200` with a JSON body relayed as it is, a
    /// `4xx` (other than `401`, `403` and `407`) with an error body in the shared shape relayed
    /// with its status (re-encoded, keeping `Retry-After`), anything else `502`.
    static func relay(status: Int, headers: HTTPHeaders, body: [UInt8]) -> HTTPServerResponse {
        switch status {
        case 200:
            let contentType = headers["Content-Type"]?.lowercased() ?? ""
            guard isJSON(contentType: contentType), (try? JSONReader().parse(body)) != nil else {
                return failed("The upstream answered 200 with a body that is not JSON.").response
            }
            var relayed = HTTPHeaders()
            relayed.set("Content-Type", "application/json")
            return HTTPServerResponse(status: 200, headers: relayed, body: .bytes(body))
        case 401, 403, 407:
            return APIError(
                status: 502,
                message: "The upstream refused this server's credentials (HTTP \(status)); check the upstream key.",
                code: "upstream_unauthorized"
            ).response
        case 400...499:
            guard let error = upstreamError(status: status, headers: headers, body: body) else {
                return failed("The upstream answered \(status) without an error body in the shared shape.").response
            }
            return error.response
        case 300...399:
            return failed("The upstream answered with a redirect (\(status)); redirects are not followed.").response
        case 500...599:
            return failed("The upstream failed with HTTP \(status).").response
        default:
            return failed("The upstream answered with status \(status), which is not a final HTTP status.").response
        }
    }

    /// Whether an answer with `status` may be relayed, so its body is worth reading: `200` and
    /// the `4xx` statuses other than `401`, `403` and `407`.
    static func relaysBody(status: Int) -> Bool {
        switch status {
        case 200: true
        case 401, 403, 407: false
        case 400...499: true
        default: false
        }
    }

    /// The error for an upstream that could not be asked or whose answer could not be read:
    /// `504` `upstream_timeout` for a timeout, else `503` `upstream_unavailable` (before an
    /// answer) or `502` `upstream_failed` (while reading one). The message never carries the
    /// platform's error text, which names the upstream's address.
    static func failure(_ error: any Error, answerStarted: Bool) -> APIError {
        if HTTPTimeout.matches(error) {
            return APIError(
                status: 504, message: "The upstream server did not answer in time.", code: "upstream_timeout")
        }
        if answerStarted { return failed("The upstream answer broke off.") }
        return APIError(
            status: 503, message: "The upstream server could not be reached; retry shortly.",
            code: "upstream_unavailable")
    }

    /// `502` `upstream_failed` with `message`.
    static func failed(_ message: String) -> APIError {
        APIError(status: 502, message: message, code: "upstream_failed")
    }

    private static func isJSON(contentType: String) -> Bool {
        let mediaType = contentType.split(separator: ";").first?.trimmingCharacters(in: .whitespaces) ?? ""
        return mediaType == "application/json" || mediaType.hasSuffix("+json")
    }

    /// The upstream's `{"error": {"message": …}}` as this server's error with `status`: a
    /// non-empty string `message`, and `type`, `code`, `param` kept when they are strings.
    private static func upstreamError(status: Int, headers: HTTPHeaders, body: [UInt8]) -> APIError? {
        guard case .object(let root)? = try? JSONReader().parse(body), case .object(let error)? = root["error"],
            case .string(let message)? = error["message"], !message.isEmpty
        else { return nil }
        func text(_ key: String) -> String? {
            guard case .string(let value)? = error[key], !value.isEmpty else { return nil }
            return value
        }
        let retryAfter = headers["Retry-After"].flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }
            .map { min(max($0, 1), maximumRetryAfterSeconds) }
        return APIError(
            status: status, message: message, type: text("type"), code: text("code"), param: text("param"),
            retryAfterSeconds: retryAfter)
    }
}
