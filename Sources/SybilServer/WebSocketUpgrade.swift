import SybilHTTP

/// The server side of the opening handshake (RFC 6455 §4.2): the checks and the accept value
/// come from ``WebSocketHandshake`` (SybilWire, shared with the client); this maps a refusal to
/// the documented error (400, or 426 naming the supported version).
enum WebSocketUpgrade {
    /// The one version spoken, sent in `Sec-WebSocket-Version` with a 426 (RFC 6455 §4.4).
    static let version = WebSocketHandshake.version

    /// The accept value for a valid upgrade request, or the error to answer with. Only a GET
    /// upgrades (RFC 6455 §4.1): a HEAD with the same fields is a 400 and never switches protocols.
    static func accept(_ request: HTTPServerRequest) throws(APIError) -> String {
        do {
            return try WebSocketHandshake.accept(method: request.method, headers: request.headers)
        } catch {
            throw apiError(error)
        }
    }

    /// The documented answer to `error`.
    static func apiError(_ error: WebSocketUpgradeError) -> APIError {
        switch error {
        case .notGet(let method):
            APIError(
                status: 400, message: "A WebSocket upgrade must be a GET request, not \(method).",
                code: "websocket_required")
        case .missingUpgrade:
            APIError(
                status: 400, message: "This route is a WebSocket; send Upgrade: websocket.", code: "websocket_required",
                param: error.field)
        case .missingConnectionUpgrade:
            APIError(
                status: 400, message: "A WebSocket upgrade needs Connection: Upgrade.", code: "websocket_required",
                param: error.field)
        case .unsupportedVersion:
            APIError(
                status: 426, message: "Only WebSocket version 13 is supported.", code: "unsupported_websocket_version",
                param: error.field)
        case .invalidKey:
            APIError(
                status: 400, message: "Sec-WebSocket-Key must be 16 bytes in base64.", code: "invalid_websocket_key",
                param: error.field)
        }
    }
}
