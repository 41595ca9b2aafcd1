import SybilCore
import SybilHTTP

/// The parameter segments of a matched path (`{uploadId}` in `/agent/uploads/{uploadId}/original`),
/// kept as sent and read only as typed values (``PathParameterValue``): a segment that does
/// not decode to one is a 400 naming the parameter, never an empty string or a guess.
///
/// Every segment is first read by the same rule: percent-encoded UTF-8 with `+` a literal
/// character (RFC 3986), no broken escape, no encoded `/` (`%2F` would make one segment two),
/// no control characters, and at most the value's ``PathParameterValue/maximumBytes`` once
/// decoded. The value's own rule comes after.
struct PathParameters: Sendable, Hashable {
    /// The segments by parameter name, still percent-encoded.
    let raw: [String: String]

    /// Parameters from their encoded segments (the route table builds them; tests too).
    init(_ raw: [String: String] = [:]) {
        self.raw = raw
    }

    /// The parameter `Value` names, decoded and checked.
    func value<Value: PathParameterValue>(_ type: Value.Type = Value.self) throws(APIError) -> Value {
        let name = Value.parameterName
        guard let segment = raw[name] else {
            // A handler read a parameter its route's template does not have: a bug, not the client's.
            preconditionFailure("the route has no path parameter {\(name)}")
        }
        return try Value(pathSegment: Self.decoded(segment, as: Value.self))
    }

    /// `segment` read by the rule every parameter shares (see the type's description).
    static func decoded<Value: PathParameterValue>(_ segment: String, as type: Value.Type) throws(APIError) -> String {
        let name = Value.parameterName
        // Three encoded bytes per decoded one at most: anything longer cannot fit once decoded.
        guard segment.utf8.count <= 3 * Value.maximumBytes else { throw tooLong(type) }
        guard let text = PercentEscapes.pathSegment(Substring(segment)) else {
            throw APIError.invalid(
                "The path parameter \(name) must be percent-encoded UTF-8 (a '%' followed by two hex digits).",
                param: Value.errorParameter)
        }
        if text.utf8.contains(UInt8(ascii: "/")) {
            throw APIError.invalid(
                "The path parameter \(name) is one path segment: an encoded '/' (%2F) is refused.",
                param: Value.errorParameter)
        }
        guard text.utf8.count <= Value.maximumBytes else { throw tooLong(type) }
        if text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            throw APIError.invalid(
                "The path parameter \(name) must not hold control characters.", param: Value.errorParameter)
        }
        return text
    }

    private static func tooLong<Value: PathParameterValue>(_ type: Value.Type) -> APIError {
        APIError.invalid(
            "The path parameter \(Value.parameterName) is at most \(Value.maximumBytes) bytes.",
            param: Value.errorParameter)
    }
}

/// A value a path parameter is read as: its name in route templates, its length bound and its
/// own rule (``init(pathSegment:)``, after the rule every segment shares).
protocol PathParameterValue: Sendable {
    /// The name in route templates, e.g. `uploadId` for `{uploadId}`.
    static var parameterName: String { get }
    /// The `param` a refusal names; the parameter's name unless the contract says otherwise.
    static var errorParameter: String { get }
    /// The most UTF-8 bytes the decoded value may have.
    static var maximumBytes: Int { get }
    /// The value from its decoded segment, or a 400/404 naming the parameter.
    init(pathSegment: String) throws(APIError)
}

extension PathParameterValue {
    /// Refusals name the parameter itself.
    static var errorParameter: String { parameterName }
}
