/// Reads one JSON object against a contract: each accessor names the member, checks its
/// type and rule, and throws a ``JSONError`` whose path points at the member.
///
/// Member names are compared by code points, as RFC 8259 does (``JSONMemberName``), never
/// by Swift's canonical equivalence. Duplicate member names are rejected on construction.
/// Call ``requireExactKeys(_:)`` (or ``rejectUnknownKeys(_:)``) to enforce the set of members.
public struct JSONObjectReader: Sendable {
    /// The object being read.
    public let object: JSONObject
    /// The path of the object itself.
    public let path: JSONPath

    /// Wraps `value` at `path`; it must be an object without duplicate member names.
    public init(_ value: JSONValue, at path: JSONPath) throws(JSONError) {
        guard case .object(let object) = value else {
            throw .contract(path, "expected an object, got \(value.kindDescription)")
        }
        if let key = Self.firstDuplicateKey(in: object) {
            throw .contract(path.appending(key: key), Self.duplicateKey(key))
        }
        self.object = object
        self.path = path
    }

    /// The first member name an earlier member of `object` has, compared by code points
    /// (``JSONMemberName``): `"xK"` and `"x\u{212A}"` are two names. Linear in the members.
    public static func firstDuplicateKey(in object: JSONObject) -> String? {
        let members = object.members
        if members.count > 16 {
            // A hostile object may have hundreds of thousands of members: linear, not quadratic.
            var seen = Set<JSONMemberName>(minimumCapacity: members.count)
            for member in members where !seen.insert(JSONMemberName(member.key)).inserted {
                return member.key
            }
        } else if members.count > 1 {
            for position in 1..<members.count {
                let key = members[position].key
                for earlier in 0..<position where JSONMemberName.equal(members[earlier].key, key) {
                    return key
                }
            }
        }
        return nil
    }

    /// What a member named twice is told: `duplicate key 'x'`, the name escaped as in JSON
    /// and cut at 80 characters.
    public static func duplicateKey(_ key: String) -> String {
        "duplicate key '\(JSONWriter.quoted(String(key.prefix(80))).dropFirst().dropLast())'"
    }

    // MARK: Key sets

    /// Fails unless the members are exactly `keys`: names the first missing key, else the
    /// first extra one.
    public func requireExactKeys(_ keys: [String]) throws(JSONError) {
        guard keys.count <= 64 else {
            for key in keys where object[key] == nil {
                throw .contract(path.appending(key: key), "required member is missing")
            }
            try rejectUnknownKeys(keys)
            return
        }
        // One pass over the members: each is matched to its key once (bit `i` for `keys[i]`).
        var present: UInt64 = 0
        var firstExtra: String?
        for member in object.members {
            if let index = keys.firstIndex(where: { JSONMemberName.equal($0, member.key) }) {
                present |= 1 << UInt64(index)
            } else if firstExtra == nil {
                firstExtra = member.key
            }
        }
        for (index, key) in keys.enumerated() where present & (1 << UInt64(index)) == 0 {
            throw .contract(path.appending(key: key), "required member is missing")
        }
        if let firstExtra { throw unexpectedMember(firstExtra, keys) }
    }

    /// Fails if a member is not one of `keys`.
    public func rejectUnknownKeys(_ keys: [String]) throws(JSONError) {
        for member in object.members where !keys.contains(where: { JSONMemberName.equal($0, member.key) }) {
            throw unexpectedMember(member.key, keys)
        }
    }

    private func unexpectedMember(_ key: String, _ keys: [String]) -> JSONError {
        .contract(
            path.appending(key: key),
            "unexpected member; allowed members are \(keys.map { JSONWriter.quoted($0) }.joined(separator: ", "))")
    }

    // MARK: Presence

    /// The member's value; fails when it is missing.
    public func value(_ key: String) throws(JSONError) -> JSONValue {
        guard let value = object[key] else {
            throw .contract(path.appending(key: key), "required member is missing")
        }
        return value
    }

    /// The member's value, or `nil` when it is missing or `null`.
    public func optionalValue(_ key: String) -> JSONValue? {
        guard let value = object[key], !value.isNull else { return nil }
        return value
    }

    // MARK: Typed members

    /// A required string member.
    public func string(_ key: String) throws(JSONError) -> String {
        try JSONValueReader.string(try value(key), at: path.appending(key: key))
    }

    /// A required string that is not empty or only white space.
    public func nonBlankString(_ key: String) throws(JSONError) -> String {
        let text = try string(key)
        guard text.unicodeScalars.contains(where: { !$0.properties.isWhitespace }) else {
            throw .contract(path.appending(key: key), "must be a non-blank string, got \(JSONWriter.quoted(text))")
        }
        return text
    }

    /// A required non-empty string.
    public func nonEmptyString(_ key: String) throws(JSONError) -> String {
        let text = try string(key)
        guard !text.isEmpty else {
            throw .contract(path.appending(key: key), "must be a non-empty string")
        }
        return text
    }

    /// A member that must be present and is a string or `null`.
    public func nullableString(_ key: String) throws(JSONError) -> String? {
        let value = try value(key)
        if value.isNull { return nil }
        return try JSONValueReader.string(value, at: path.appending(key: key))
    }

    /// A member that may be absent or `null`; when present it must be a string.
    public func optionalString(_ key: String) throws(JSONError) -> String? {
        guard let value = optionalValue(key) else { return nil }
        return try JSONValueReader.string(value, at: path.appending(key: key))
    }

    /// A member that may be absent or `null`; when present it must be a non-empty string.
    public func optionalNonEmptyString(_ key: String) throws(JSONError) -> String? {
        guard let value = optionalValue(key) else { return nil }
        let text = try JSONValueReader.string(value, at: path.appending(key: key))
        guard !text.isEmpty else {
            throw .contract(path.appending(key: key), "must be a non-empty string when present")
        }
        return text
    }

    /// A required string member that must be one of `T`'s raw values; the member's path is
    /// built only when it is refused.
    public func oneOf<T: RawRepresentable & CaseIterable>(_ key: String, _ type: T.Type) throws(JSONError) -> T
    where T.RawValue == String {
        let text = try string(key)
        guard let result = T(rawValue: text) else {
            let allowed = T.allCases.map { JSONWriter.quoted($0.rawValue) }.joined(separator: ", ")
            throw .contract(path.appending(key: key), "\(JSONWriter.quoted(text)) is not one of \(allowed)")
        }
        return result
    }

    /// A required boolean member.
    public func bool(_ key: String) throws(JSONError) -> Bool {
        let value = try value(key)
        guard case .bool(let flag) = value else {
            throw .contract(path.appending(key: key), "expected a boolean, got \(value.kindDescription)")
        }
        return flag
    }

    /// A required integer member: an integer literal (no fraction, no exponent) in `range`.
    public func integer(_ key: String, in range: ClosedRange<Int64> = Int64.min...Int64.max) throws(JSONError) -> Int64
    {
        try JSONValueReader.integer(try value(key), at: path.appending(key: key), in: range)
    }

    /// A required array member.
    public func array(_ key: String) throws(JSONError) -> [JSONValue] {
        let value = try value(key)
        guard case .array(let elements) = value else {
            throw .contract(path.appending(key: key), "expected an array, got \(value.kindDescription)")
        }
        return elements
    }

    /// A member that must be present and is an object or `null`.
    public func nullableObject(_ key: String) throws(JSONError) -> JSONObject? {
        let value = try value(key)
        switch value {
        case .null: return nil
        case .object(let object): return object
        default:
            throw .contract(path.appending(key: key), "expected an object or null, got \(value.kindDescription)")
        }
    }

    /// A required member read by `decode` at the member's path.
    public func decode<T>(_ key: String, _ decode: (JSONValue, JSONPath) throws(JSONError) -> T) throws(JSONError) -> T
    {
        try decode(try value(key), path.appending(key: key))
    }
}

/// Checks for single values, shared by object members and array elements.
public enum JSONValueReader {
    /// The largest integer a JavaScript peer represents exactly: 2^53 − 1.
    public static let maxSafeInteger: Int64 = 9_007_199_254_740_991
    /// The JavaScript safe-integer range, ±(2^53 − 1).
    public static let safeIntegerRange: ClosedRange<Int64> = -maxSafeInteger...maxSafeInteger

    /// `value` as a string. The path is only built when the value is refused, as in every
    /// reader here: a document read without an error builds no paths for its scalars.
    public static func string(_ value: JSONValue, at path: @autoclosure () -> JSONPath) throws(JSONError) -> String {
        guard case .string(let text) = value else {
            throw .contract(path(), "expected a string, got \(value.kindDescription)")
        }
        return text
    }

    /// `value` as an integer literal within `range`; `1.0`, `1e3` and out-of-range literals fail.
    public static func integer(
        _ value: JSONValue, at path: @autoclosure () -> JSONPath, in range: ClosedRange<Int64> = Int64.min...Int64.max
    ) throws(JSONError) -> Int64 {
        guard case .number(let number) = value else {
            throw .contract(path(), "expected an integer, got \(value.kindDescription)")
        }
        guard number.isIntegerLiteral else {
            throw .contract(path(), "expected an integer literal without fraction or exponent, got \(number.literal)")
        }
        guard let integer = number.int64Value, range.contains(integer) else {
            throw .contract(path(), "integer \(number.literal) is outside \(range.lowerBound)…\(range.upperBound)")
        }
        return integer
    }

    /// `value` as an unsigned integer literal (`0 … UInt64.max`).
    public static func unsignedInteger(_ value: JSONValue, at path: @autoclosure () -> JSONPath) throws(JSONError)
        -> UInt64
    {
        guard case .number(let number) = value else {
            throw .contract(path(), "expected an unsigned integer, got \(value.kindDescription)")
        }
        guard number.isIntegerLiteral else {
            throw .contract(
                path(), "expected an unsigned integer literal without fraction or exponent, got \(number.literal)")
        }
        guard let integer = number.uint64Value else {
            throw .contract(path(), "expected an unsigned integer within 0…\(UInt64.max), got \(number.literal)")
        }
        return integer
    }
}
