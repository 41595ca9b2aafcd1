/// Why a message head (or a trailer line) cannot be read, as ``HTTPHeadDecoder`` and the field
/// rules in ``HTTPHeaders`` find it; the request parser maps it to a status, the response parser
/// to its error.
enum HTTPHeadError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The bytes break the syntax; the text names what is wrong.
    case malformed(String)
    /// The head is longer than `limit` bytes.
    case tooLarge(limit: Int)
    /// The head has more than `limit` field lines.
    case tooManyFields(limit: Int)
    /// An HTTP version other than 1.0 and 1.1 (a request's; a response's is `malformed`).
    case versionNotSupported(String)

    /// One phrase naming the fault.
    var description: String {
        switch self {
        case .malformed(let reason): reason
        case .tooLarge(let limit): "the head is longer than \(limit) bytes"
        case .tooManyFields(let limit): "the head has more than \(limit) header fields"
        case .versionNotSupported(let version): "\(version) is not supported"
        }
    }
}
