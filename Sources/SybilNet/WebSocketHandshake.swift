import Foundation
import SybilCore

#if canImport(COpenSSL)
    import COpenSSL
#elseif canImport(CryptoKit)
    import CryptoKit
#endif

/// The client side of the WebSocket opening handshake (RFC 6455 §4.1): the request with a
/// fresh random key, and the checks on the server's answer (101, `Upgrade: websocket`,
/// `Connection: Upgrade`, the `Sec-WebSocket-Accept` derived from the key with SHA-1).
public struct WebSocketHandshake: Sendable, Hashable {
    /// The GUID every accept value is derived with.
    public static let guid = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

    /// The `Sec-WebSocket-Key` sent: 16 random bytes in base64.
    public let key: String

    /// A handshake with a key drawn from `random`.
    public init(random: some RandomSource) {
        var bytes: [UInt8] = []
        for _ in 0..<2 { withUnsafeBytes(of: random.nextUInt64()) { bytes.append(contentsOf: $0) } }
        key = Data(bytes).base64EncodedString()
    }

    /// A handshake with a given key (tests).
    public init(key: String) {
        self.key = key
    }

    /// The `Sec-WebSocket-Accept` a server must answer for `key`.
    public static func acceptValue(for key: String) -> String {
        let input = Array((key + guid).utf8)
        #if canImport(COpenSSL)
            var digest = [UInt8](repeating: 0, count: Int(SHA_DIGEST_LENGTH))
            _ = SHA1(input, input.count, &digest)
        #else
            let digest = Array(Insecure.SHA1.hash(data: input))
        #endif
        return Data(digest).base64EncodedString()
    }

    /// The request head for `url` (`ws:`/`wss:`), with extra header fields.
    public func requestHead(for url: URL, headers: HTTPHeaders = HTTPHeaders()) -> String {
        let defaultPort = url.scheme == "wss" ? 443 : 80
        let host = url.host ?? "localhost"
        let hostField = url.port.map { $0 == defaultPort ? host : "\(host):\($0)" } ?? host
        var target = url.path.isEmpty ? "/" : url.path
        if let query = url.query { target += "?" + query }
        var lines = [
            "GET \(target) HTTP/1.1", "Host: \(hostField)", "Upgrade: websocket", "Connection: Upgrade",
            "Sec-WebSocket-Key: \(key)", "Sec-WebSocket-Version: 13",
        ]
        for field in headers { lines.append("\(field.name): \(field.value)") }
        return lines.joined(separator: "\r\n") + "\r\n\r\n"
    }

    /// Checks the server's response head (status line and fields, without the blank line).
    public func validate(responseHead head: String) throws(WebSocketHandshakeError) {
        let lines = head.split(separator: "\r\n", omittingEmptySubsequences: false).map(String.init)
        let status = lines.first ?? ""
        let parts = status.split(separator: " ", maxSplits: 2)
        guard parts.count >= 2, parts[0].hasPrefix("HTTP/1.1"), parts[1] == "101" else {
            throw .unexpectedStatus(status)
        }
        var fields = HTTPHeaders()
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            fields.set(String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        guard fields["Upgrade"]?.lowercased() == "websocket" else { throw .missingUpgrade(fields["Upgrade"]) }
        let connection = fields["Connection"]?.lowercased().split(separator: ",").map {
            $0.trimmingCharacters(in: .whitespaces)
        }
        guard connection?.contains("upgrade") == true else { throw .missingConnectionUpgrade(fields["Connection"]) }
        let expected = Self.acceptValue(for: key)
        guard fields["Sec-WebSocket-Accept"] == expected else {
            throw .wrongAccept(expected: expected, got: fields["Sec-WebSocket-Accept"])
        }
        if let extensions = fields["Sec-WebSocket-Extensions"], !extensions.isEmpty {
            throw .unrequestedExtension(extensions)
        }
    }
}

/// Why a server's handshake answer was refused.
public enum WebSocketHandshakeError: Error, Sendable, Hashable, CustomStringConvertible {
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
