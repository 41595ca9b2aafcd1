/// Why a JSON document or a value in it was rejected: malformed syntax, a limit, or a rule of
/// the contract being decoded. The message names the rule and quotes the offending value;
/// it never contains the whole document.
public struct JSONError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The family of problem.
    public enum Kind: Sendable, Hashable {
        /// The bytes are not JSON per RFC 8259.
        case syntax
        /// The document exceeds a configured size or nesting limit.
        case limit
        /// The JSON is well formed but breaks a rule of the contract being decoded.
        case contract
    }

    /// The family of problem.
    public let kind: Kind
    /// Where the problem is: the value being read or the member that is missing or extra.
    public let path: JSONPath
    /// The byte offset into the document, for syntax and limit errors.
    public let offset: Int?
    /// What is wrong and what is allowed, e.g. `expected an integer literal, got 1.5`.
    public let message: String

    /// Creates an error.
    public init(kind: Kind, path: JSONPath, offset: Int? = nil, message: String) {
        self.kind = kind
        self.path = path
        self.offset = offset
        self.message = message
    }

    /// A contract error at `path`.
    public static func contract(_ path: JSONPath, _ message: String) -> JSONError {
        JSONError(kind: .contract, path: path, message: message)
    }

    /// One line: `path: message`, with the byte offset when known.
    public var description: String {
        var text = "\(path): \(message)"
        if let offset { text += " (at byte \(offset))" }
        return text
    }
}
