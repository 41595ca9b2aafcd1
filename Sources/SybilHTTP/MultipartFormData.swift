/// A `multipart/form-data` body (RFC 7578) as a client builds it: ordered parts, each a
/// named field with an optional file name and content type. `AgentRoomHTTPClient` sends
/// uploads this way; the server reads them with `MultipartFormDataParser`.
public struct MultipartFormData: Sendable, Hashable {
    /// One part.
    public struct Part: Sendable, Hashable {
        /// The field name (ASCII, no quotes or line breaks).
        public var name: String
        /// The file name, for a file part (UTF-8, sent as a quoted `filename`, see ``encoded()``).
        public var fileName: String?
        /// The part's content type, for a file part.
        public var contentType: String?
        /// The content.
        public var body: [UInt8]

        /// Creates a part.
        public init(name: String, fileName: String? = nil, contentType: String? = nil, body: [UInt8]) {
            self.name = name
            self.fileName = fileName
            self.contentType = contentType
            self.body = body
        }
    }

    /// The boundary (1 to 70 characters of RFC 2046's set, never found in a part's body).
    public var boundary: String
    /// The parts, in order.
    public var parts: [Part]

    /// Creates a body.
    public init(boundary: String, parts: [Part]) {
        self.boundary = boundary
        self.parts = parts
    }

    /// `multipart/form-data; boundary=…`, the boundary quoted when it is not a token (RFC 2046
    /// allows spaces and `'()+,/:=?` in a boundary, which a bare parameter value cannot hold).
    public var contentType: String {
        let isToken = boundary.utf8.allSatisfy(MultipartFormDataParser.isTokenByte)
        return "multipart/form-data; boundary=" + (isToken ? boundary : "\"\(boundary)\"")
    }

    /// The encoded body. A file name is sent as a quoted `filename` with `"`, `\`, CR and
    /// LF escaped as `%22`, `%5C`, `%0D`, `%0A` (the WHATWG form encoding).
    public func encoded() -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(parts.reduce(0) { $0 + $1.body.count + 160 })
        for part in parts {
            out += Array("--\(boundary)\r\n".utf8)
            var disposition = "Content-Disposition: form-data; name=\"\(Self.escaped(part.name))\""
            if let fileName = part.fileName { disposition += "; filename=\"\(Self.escaped(fileName))\"" }
            out += Array((disposition + "\r\n").utf8)
            if let contentType = part.contentType { out += Array("Content-Type: \(contentType)\r\n".utf8) }
            out += Array("\r\n".utf8)
            out += part.body
            out += Array("\r\n".utf8)
        }
        out += Array("--\(boundary)--\r\n".utf8)
        return out
    }

    /// Escapes the characters a quoted header parameter cannot hold.
    static func escaped(_ text: String) -> String {
        var result = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "%22"
            case "\\": result += "%5C"
            case "\r": result += "%0D"
            case "\n": result += "%0A"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }
}
