/// What a head's `Content-Length` and `Transfer-Encoding` fields say about its body (RFC 9112
/// §6), read the same way for requests and responses; what follows from it differs by side (a
/// server refuses a request with both fields, or with a coding other than chunked; a client
/// reads a response with a final coding other than chunked to the connection's end).
enum HTTPBodyFraming: Sendable, Hashable {
    /// Neither field.
    case none
    /// One valid length.
    case length(Int)
    /// The transfer codings of every `Transfer-Encoding` field in order, lowercased, without the
    /// white space around them (an empty list element stays, as ""), and whether a
    /// `Content-Length` came with them (unread: the codings override it).
    case codings([String], withLength: Bool)

    /// The framing `headers` declare. Every `Content-Length` field must hold the same value, one
    /// to 18 ASCII digits; with `lengthLists` (a client reading a response, RFC 9110 §8.6) a field
    /// may also repeat it as a comma-separated list (`42, 42`).
    init(_ headers: HTTPHeaders, lengthLists: Bool) throws(HTTPHeadError) {
        // One pass over the fields, without lowercasing or collecting them: the first length,
        // whether every other length equals it, and the transfer codings (rarely any).
        var firstLength: String?
        var lengthsAgree = true
        var encodings: [String] = []
        for field in headers.fields {
            if HTTPHeaders.isNamed(field.name, "content-length") {
                if let firstLength {
                    if field.value != firstLength { lengthsAgree = false }
                } else {
                    firstLength = field.value
                }
            } else if HTTPHeaders.isNamed(field.name, "transfer-encoding") {
                encodings.append(field.value)
            }
        }
        if !encodings.isEmpty {
            let codings = encodings.joined(separator: ",").split(separator: ",", omittingEmptySubsequences: false)
            self = .codings(codings.map { HTTPHeaders.trimmed($0).lowercased() }, withLength: firstLength != nil)
            return
        }
        guard let firstLength else {
            self = .none
            return
        }
        guard lengthsAgree || lengthLists else {
            throw .malformed("the Content-Length fields disagree (\(headers.values(named: "Content-Length")))")
        }
        var length = firstLength
        if lengthLists {
            let values = Set(
                headers.values(named: "Content-Length").flatMap { $0.split(separator: ",").map(HTTPHeaders.trimmed) })
            guard values.count == 1, let value = values.first else {
                throw .malformed("Content-Length \(firstLength.debugDescription) is not one valid length")
            }
            length = value
        }
        guard !length.isEmpty, length.utf8.count <= 18, length.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
            let value = Int(length)
        else { throw .malformed("Content-Length \(firstLength.debugDescription) is not one valid length") }
        self = .length(value)
    }
}
