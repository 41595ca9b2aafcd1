/// Why a server's handshake answer was refused by the client.
public enum WebSocketHandshakeError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The answer's head breaks the HTTP/1.1 syntax or bounds (the text names what is wrong).
    case invalidHead(String)
    /// Not `HTTP/1.1 101`.
    case unexpectedStatus(String)
    /// `Upgrade` is not `websocket`.
    case missingUpgrade(String?)
    /// `Connection` does not list `Upgrade`.
    case missingConnectionUpgrade(String?)
    /// `Sec-WebSocket-Accept` does not match the key.
    case wrongAccept(expected: String, got: String?)
    /// The server chose an extension the client did not offer.
    case unrequestedExtension(String)

    /// One sentence naming the field.
    public var description: String {
        switch self {
        case .invalidHead(let reason): "the server's answer is not a valid HTTP/1.1 head: \(reason)"
        case .unexpectedStatus(let line): "the server did not switch protocols: \(line.debugDescription)"
        case .missingUpgrade(let value): "the Upgrade field is \(value.map { "\"\($0)\"" } ?? "missing"), not websocket"
        case .missingConnectionUpgrade(let value):
            "the Connection field is \(value.map { "\"\($0)\"" } ?? "missing"), without Upgrade"
        case .wrongAccept(let expected, let got):
            "Sec-WebSocket-Accept is \(got.map { "\"\($0)\"" } ?? "missing"), expected \"\(expected)\""
        case .unrequestedExtension(let value): "the server chose an extension that was not offered: \(value)"
        }
    }
}
