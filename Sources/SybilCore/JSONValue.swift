/// A JSON document tree as read by ``JSONReader``: numbers keep their exact literal and
/// objects keep their members in document order (duplicates included, for the decoder to judge).
///
/// Equality and hashing compare strings and member names by code points, as RFC 8259 does
/// (see ``JSONMemberName``), not by Swift's canonical equivalence.
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

/// One `"key": value` member of a JSON object; members are equal when their names are the
/// same code points and their values are equal.
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

    /// The value of the first member named `key`, compared by code points (a Kelvin sign
    /// U+212A is not the letter `K`).
    public subscript(key: String) -> JSONValue? {
        for member in members where JSONMemberName.equal(member.key, key) {
            return member.value
        }
        return nil
    }
}

extension JSONValue {
    /// Whether `lhs` and `rhs` are the same JSON value: strings and member names by code points,
    /// numbers by literal, arrays and object members in order.
    public static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): true
        case (.bool(let left), .bool(let right)): left == right
        case (.number(let left), .number(let right)): left == right
        case (.string(let left), .string(let right)): JSONMemberName.equal(left, right)
        case (.array(let left), .array(let right)): left == right
        case (.object(let left), .object(let right)): left == right
        default: false
        }
    }

    /// Hashes consistently with ``==(_:_:)``: strings by their UTF-8 bytes.
    public func hash(into hasher: inout Hasher) {
        switch self {
        case .null:
            hasher.combine(0 as UInt8)
        case .bool(let flag):
            hasher.combine(1 as UInt8)
            hasher.combine(flag)
        case .number(let number):
            hasher.combine(2 as UInt8)
            hasher.combine(number)
        case .string(let text):
            hasher.combine(3 as UInt8)
            JSONMemberName.hash(text, into: &hasher)
        case .array(let elements):
            hasher.combine(4 as UInt8)
            hasher.combine(elements)
        case .object(let object):
            hasher.combine(5 as UInt8)
            hasher.combine(object)
        }
    }
}

extension JSONMember {
    /// Whether the names are the same code points and the values are equal.
    public static func == (lhs: JSONMember, rhs: JSONMember) -> Bool {
        JSONMemberName.equal(lhs.key, rhs.key) && lhs.value == rhs.value
    }

    /// Hashes the name's UTF-8 bytes and the value.
    public func hash(into hasher: inout Hasher) {
        JSONMemberName.hash(key, into: &hasher)
        hasher.combine(value)
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
