/// Why a server refuses an upgrade request (RFC 6455 §4.2.1); each case names the field.
public enum WebSocketUpgradeError: Error, Sendable, Hashable {
    /// The method is not GET (a HEAD with upgrade fields never switches protocols).
    case notGet(String)
    /// `Upgrade` is missing or not `websocket`.
    case missingUpgrade
    /// `Connection` does not list `Upgrade`.
    case missingConnectionUpgrade
    /// `Sec-WebSocket-Version` is missing or not 13 (answered with 426 naming 13, §4.4).
    case unsupportedVersion
    /// `Sec-WebSocket-Key` is missing or not 16 bytes in base64.
    case invalidKey

    /// The header field at fault, if one is.
    public var field: String? {
        switch self {
        case .notGet: nil
        case .missingUpgrade: "Upgrade"
        case .missingConnectionUpgrade: "Connection"
        case .unsupportedVersion: "Sec-WebSocket-Version"
        case .invalidKey: "Sec-WebSocket-Key"
        }
    }
}
