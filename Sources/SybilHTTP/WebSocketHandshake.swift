import SybilCore

/// The WebSocket opening handshake (RFC 6455 §4), both sides, without I/O. The client sends
/// ``requestHead(target:host:headers:)`` with a fresh random key and checks the answer with
/// ``validate(responseHead:)`` (101, `Upgrade: websocket`, `Connection: Upgrade`, the
/// `Sec-WebSocket-Accept` derived from the key with SHA-1, no extension it did not offer). The
/// server checks an upgrade request with ``accept(method:headers:)`` and answers its accept value.
public struct WebSocketHandshake: Sendable, Hashable {
    /// The GUID every accept value is derived with.
    public static let guid = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

    /// The one protocol version spoken, sent in `Sec-WebSocket-Version` (and with a 426).
    public static let version = "13"

    /// The `Sec-WebSocket-Key` sent: 16 random bytes in base64.
    public let key: String

    /// A handshake with a key drawn from `random`.
    public init(random: some RandomSource) {
        var bytes: [UInt8] = []
        for _ in 0..<2 {
            let word = random.nextUInt64()
            for shift in stride(from: 0, to: 64, by: 8) { bytes.append(UInt8(truncatingIfNeeded: word >> shift)) }
        }
        key = Base64.encode(bytes)
    }

    /// A handshake with a given key (tests).
    public init(key: String) {
        self.key = key
    }

    /// The `Sec-WebSocket-Accept` a server must answer for `key`.
    public static func acceptValue(for key: String) -> String {
        Base64.encode(SHA1.digest(Array((key + guid).utf8)))
    }

    /// The request head for the origin-form `target` (`/path?query`) on `host` (the `Host`
    /// field: the host, with `:port` unless it is the scheme's default), with extra fields.
    public func requestHead(target: String, host: String, headers: HTTPHeaders = HTTPHeaders()) -> String {
        var lines = [
            "GET \(target) HTTP/1.1", "Host: \(host)", "Upgrade: websocket", "Connection: Upgrade",
            "Sec-WebSocket-Key: \(key)", "Sec-WebSocket-Version: \(Self.version)",
        ]
        for field in headers { lines.append("\(field.name): \(field.value)") }
        return lines.joined(separator: "\r\n") + "\r\n\r\n"
    }

    /// The longest answer head the client reads, its final CRLF CRLF included.
    static let maximumResponseHeadBytes = 16 << 10

    /// A decoder for the server's answer head: the responses' head decoder (status line, field
    /// lines by ``HTTPHeaders/fieldLine(in:_:kind:)``, CRLF only), bounded by
    /// ``maximumResponseHeadBytes`` and a response's field count.
    static func responseHeadDecoder() -> HTTPHeadDecoder<HTTPResponseParser.StatusLine> {
        HTTPHeadDecoder(
            maximumHeadBytes: maximumResponseHeadBytes, maximumFieldCount: HTTPResponseParser.maximumFieldCount)
    }

    /// Reads the server's answer head at the front of `received` with `decoder` once it is
    /// complete, removes it and checks it; `false` while it is not complete. Throws as soon as
    /// the bytes show a malformed or too large head, or when the head does not accept the
    /// upgrade; the bytes after the head (the first frames) stay in `received`.
    func readResponse(
        _ received: inout [UInt8], with decoder: inout HTTPHeadDecoder<HTTPResponseParser.StatusLine>
    ) throws(WebSocketHandshakeError) -> Bool {
        let head: (startLine: HTTPResponseParser.StatusLine, headers: HTTPHeaders)
        do throws(HTTPHeadError) {
            guard let decoded = try decoder.decode(&received) else { return false }
            head = decoded
        } catch {
            if case .tooLarge = error { throw .invalidHead("it is longer than 16 KiB") }
            throw .invalidHead(error.description)
        }
        try validate(statusLine: head.startLine, headers: head.headers)
        return true
    }

    /// Checks the server's response head (status line and fields, without the blank line),
    /// read as ``readResponse(_:with:)`` reads it.
    public func validate(responseHead head: String) throws(WebSocketHandshakeError) {
        var bytes = Array(head.utf8) + Array("\r\n\r\n".utf8)
        var decoder = Self.responseHeadDecoder()
        guard try readResponse(&bytes, with: &decoder), bytes.isEmpty else {
            throw .invalidHead("it is not one head")
        }
    }

    /// Checks a decoded answer head: `HTTP/1.1 101`, then its fields.
    private func validate(
        statusLine: HTTPResponseParser.StatusLine, headers fields: HTTPHeaders
    ) throws(WebSocketHandshakeError) {
        guard statusLine.minorVersion == 1, statusLine.status == 101 else {
            throw .unexpectedStatus(statusLine.text)
        }
        guard fields["Upgrade"]?.lowercased() == "websocket" else { throw .missingUpgrade(fields["Upgrade"]) }
        guard fields.listContains("Connection", token: "upgrade") else {
            throw .missingConnectionUpgrade(fields["Connection"])
        }
        // Sent twice, the field is not the one value the key asks for (RFC 6455 §11.3.3: it
        // must not appear more than once), and every extensions field counts, not the first.
        let expected = Self.acceptValue(for: key)
        let accepts = fields.values(named: "Sec-WebSocket-Accept")
        guard accepts == [expected] else {
            throw .wrongAccept(expected: expected, got: accepts.isEmpty ? nil : accepts.joined(separator: ", "))
        }
        let extensions = fields.values(named: "Sec-WebSocket-Extensions").filter { !$0.isEmpty }
        if !extensions.isEmpty { throw .unrequestedExtension(extensions.joined(separator: ", ")) }
    }

    /// The server side (RFC 6455 §4.2.1): the accept value for a valid upgrade request, or why
    /// it is not one. Only a GET upgrades; `Upgrade` must be `websocket`, `Connection` must list
    /// `Upgrade`, the version must be 13 and the key 16 bytes in base64.
    public static func accept(method: String, headers: HTTPHeaders) throws(WebSocketUpgradeError) -> String {
        guard method == "GET" else { throw .notGet(method) }
        guard headers["Upgrade"]?.lowercased() == "websocket" else { throw .missingUpgrade }
        guard headers.listContains("Connection", token: "upgrade") else { throw .missingConnectionUpgrade }
        // Each of these fields must come once (RFC 6455 §11.3.1, §11.3.5): a second key or
        // version leaves the request without one meaning.
        guard headers.values(named: "Sec-WebSocket-Version") == [version] else { throw .unsupportedVersion }
        let keys = headers.values(named: "Sec-WebSocket-Key")
        guard keys.count == 1, let key = keys.first, Base64.decode(key)?.count == 16 else { throw .invalidKey }
        return acceptValue(for: key)
    }
}
