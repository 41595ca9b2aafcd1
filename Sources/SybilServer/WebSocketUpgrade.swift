import Foundation
import SybilNet

/// The server side of the opening handshake (RFC 6455 §4.2): checks the upgrade request and
/// computes `Sec-WebSocket-Accept`.
enum WebSocketUpgrade {
    /// The one version spoken, sent in `Sec-WebSocket-Version` with a 426 (RFC 6455 §4.4).
    static let version = "13"

    /// The accept value for a valid upgrade request, or the error to answer with (400, or
    /// 426 naming the supported version). Only a GET upgrades (RFC 6455 §4.1): a HEAD with
    /// the same fields is a 400 and never switches protocols.
    static func accept(_ request: HTTPServerRequest) throws(APIError) -> String {
        let headers = request.headers
        guard request.method == "GET" else {
            throw APIError(
                status: 400, message: "A WebSocket upgrade must be a GET request, not \(request.method).",
                code: "websocket_required")
        }
        guard headers["Upgrade"]?.lowercased() == "websocket" else {
            throw APIError(
                status: 400, message: "This route is a WebSocket; send Upgrade: websocket.", code: "websocket_required",
                param: "Upgrade")
        }
        let connection = (headers["Connection"] ?? "").lowercased().split(separator: ",")
            .map { $0.trimmingCharacters(in: .whitespaces) }
        guard connection.contains("upgrade") else {
            throw APIError(
                status: 400, message: "A WebSocket upgrade needs Connection: Upgrade.", code: "websocket_required",
                param: "Connection")
        }
        guard headers["Sec-WebSocket-Version"] == version else {
            throw APIError(
                status: 426, message: "Only WebSocket version 13 is supported.", code: "unsupported_websocket_version",
                param: "Sec-WebSocket-Version")
        }
        guard let key = headers["Sec-WebSocket-Key"], let decoded = Data(base64Encoded: key), decoded.count == 16
        else {
            throw APIError(
                status: 400, message: "Sec-WebSocket-Key must be 16 bytes in base64.", code: "invalid_websocket_key",
                param: "Sec-WebSocket-Key")
        }
        return WebSocketHandshake.acceptValue(for: key)
    }
}
