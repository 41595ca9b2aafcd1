/// A JSON document tree as read by ``JSONReader``: numbers keep their exact literal and
/// objects keep their members in document order (duplicates included, for the decoder to judge).
public enum JSONValue: Sendable, Hashable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number, kept as its literal text.
    case number(JSONNumber)
    /// A string, unescaped.
    case string(String)
    /// An array.
    case array([JSONValue])
    /// An object, members in document order.
    case object(JSONObject)

    /// The JSON type's name, for error messages ("an object", "a string", …).
    public var kindDescription: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }

    /// Whether this is `null`.
    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }
}

/// One `"key": value` member of a JSON object.
public struct JSONMember: Sendable, Hashable {
    /// The member's name.
    public var key: String
    /// The member's value.
    public var value: JSONValue

    /// Creates a member.
    public init(_ key: String, _ value: JSONValue) {
        self.key = key
        self.value = value
    }
}

/// A JSON object with its members in document order.
public struct JSONObject: Sendable, Hashable {
    /// The members in document order; a key may occur more than once.
    public var members: [JSONMember]

    /// Creates an object from members in order.
    public init(_ members: [JSONMember] = []) {
        self.members = members
    }

    /// The value of the first member named `key`.
    public subscript(key: String) -> JSONValue? {
        for member in members where member.key == key {
            return member.value
        }
        return nil
    }
}

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByBooleanLiteral, ExpressibleByNilLiteral,
    ExpressibleByIntegerLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral
{
    /// A string value.
    public init(stringLiteral value: String) { self = .string(value) }
    /// A boolean value.
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    /// `null`.
    public init(nilLiteral: ()) { self = .null }
    /// An integer number.
    public init(integerLiteral value: Int64) { self = .number(JSONNumber(value)) }
    /// An array value.
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    /// An object value with members in the literal's order.
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(JSONObject(elements.map { JSONMember($0.0, $0.1) }))
    }
}

extension JSONObject: ExpressibleByDictionaryLiteral {
    /// An object with members in the literal's order.
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self.init(elements.map { JSONMember($0.0, $0.1) })
    }
}
