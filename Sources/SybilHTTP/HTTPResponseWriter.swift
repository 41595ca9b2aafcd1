import Foundation

/// Serializes HTTP/1.1 responses: the status line and fields, then either a whole body with
/// Content-Length or a chunked stream.
public enum HTTPResponseWriter {
    /// The reason phrase for the statuses the server sends.
    public static func reason(for status: Int) -> String {
        switch status {
        case 101: "Switching Protocols"
        case 200: "OK"
        case 201: "Created"
        case 202: "Accepted"
        case 204: "No Content"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 408: "Request Timeout"
        case 409: "Conflict"
        case 413: "Content Too Large"
        case 429: "Too Many Requests"
        case 426: "Upgrade Required"
        case 431: "Request Header Fields Too Large"
        case 500: "Internal Server Error"
        case 501: "Not Implemented"
        case 503: "Service Unavailable"
        case 505: "HTTP Version Not Supported"
        case 507: "Insufficient Storage"
        default: "Status \(status)"
        }
    }

    /// The head of a response; `Content-Length` or `Transfer-Encoding` must be among `headers`
    /// unless the status has no body. A field whose name is not a token is left out, and a CR,
    /// LF or NUL in a value becomes a space: a response can never be split.
    public static func head(status: Int, headers: HTTPHeaders) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(128 + headers.fields.count * 32)
        appendHead(status: status, headers: headers, to: &bytes)
        bytes.append(0x0D)
        bytes.append(0x0A)
        return bytes
    }

    /// The bytes of a whole response in one buffer: the head of `headers` with `Content-Length:
    /// body.count` set (and `Connection: close` unless `keepAlive`), as ``head(status:headers:)``
    /// writes after ``HTTPHeaders/set(_:_:)``, then `body` unless `includeBody` is false (HEAD).
    /// The server's path for every whole response: neither the headers nor the body are copied
    /// into intermediate values.
    static func whole(
        status: Int, headers: HTTPHeaders, body: [UInt8], keepAlive: Bool, includeBody: Bool
    ) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(160 + headers.fields.count * 32 + (includeBody ? body.count : 0))
        appendHead(status: status, headers: headers, to: &bytes) { name in
            HTTPHeaders.isNamed(name, "Content-Length") || (!keepAlive && HTTPHeaders.isNamed(name, "Connection"))
        }
        appendField("Content-Length", String(body.count), to: &bytes)
        if !keepAlive { appendField("Connection", "close", to: &bytes) }
        bytes.append(0x0D)
        bytes.append(0x0A)
        if includeBody { bytes.append(contentsOf: body) }
        return bytes
    }

    /// The status line and the fields of `headers` but those `skipping` names, without the
    /// blank line that ends a head.
    private static func appendHead(
        status: Int, headers: HTTPHeaders, to bytes: inout [UInt8], skipping: (String) -> Bool = { _ in false }
    ) {
        // The status line appended piece by piece: no interpolated String per response.
        bytes.append(contentsOf: "HTTP/1.1 ".utf8)
        bytes.append(contentsOf: String(status).utf8)
        bytes.append(0x20)
        bytes.append(contentsOf: reason(for: status).utf8)
        bytes.append(0x0D)
        bytes.append(0x0A)
        for field in headers.fields where !skipping(field.name) {
            appendField(field.name, field.value, to: &bytes)
        }
    }

    /// One field line; a name that is not a token is left out, a CR, LF or NUL in the value
    /// becomes a space.
    private static func appendField(_ name: String, _ value: String, to bytes: inout [UInt8]) {
        guard !name.isEmpty, name.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != 0x3A }) else { return }
        bytes.append(contentsOf: name.utf8)
        bytes.append(0x3A)
        bytes.append(0x20)
        // Most values are clean: appended whole, not byte by byte.
        if value.utf8.contains(where: { $0 == 0x0D || $0 == 0x0A || $0 == 0 }) {
            for byte in value.utf8 {
                bytes.append(byte == 0x0D || byte == 0x0A || byte == 0 ? 0x20 : byte)
            }
        } else {
            bytes.append(contentsOf: value.utf8)
        }
        bytes.append(0x0D)
        bytes.append(0x0A)
    }

    /// A complete response with `body` and its Content-Length.
    public static func response(status: Int, headers: HTTPHeaders = HTTPHeaders(), body: [UInt8]) -> [UInt8] {
        var fields = headers
        fields.set("Content-Length", String(body.count))
        return head(status: status, headers: fields) + body
    }

    /// One chunk of a chunked body (an empty `bytes` would end the body: use ``lastChunk``).
    public static func chunk(_ bytes: [UInt8]) -> [UInt8] {
        precondition(!bytes.isEmpty, "an empty chunk ends the body; send lastChunk instead")
        return Array((String(bytes.count, radix: 16) + "\r\n").utf8) + bytes + [0x0D, 0x0A]
    }

    /// The end of a chunked body.
    public static let lastChunk: [UInt8] = Array("0\r\n\r\n".utf8)
}

/// Formats Server-Sent Events (the inverse of the client's parser): `data` split into one line
/// per LF, optional `event`, `id` and `retry`, comments for heartbeats.
public enum SSEEventWriter {
    /// One event, ending with the blank line that dispatches it.
    public static func event(data: String, type: String? = nil, id: String? = nil, retry: Int? = nil) -> [UInt8] {
        var text = ""
        if let type {
            precondition(!type.contains(where: \.isNewline), "an event type is one line")
            text += "event: \(type)\n"
        }
        if let id {
            precondition(!id.contains(where: \.isNewline) && !id.contains("\u{0}"), "an id is one line without NUL")
            text += "id: \(id)\n"
        }
        if let retry { text += "retry: \(retry)\n" }
        let normalized = data.replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\r", with: "\n")
        for line in normalized.split(separator: "\n", omittingEmptySubsequences: false) {
            text += "data: \(line)\n"
        }
        return Array((text + "\n").utf8)
    }

    /// A comment line (heartbeats keep proxies and stall detectors quiet).
    public static func comment(_ text: String = "keep-alive") -> [UInt8] {
        precondition(!text.contains(where: \.isNewline), "a comment is one line")
        return Array(": \(text)\n\n".utf8)
    }
}
