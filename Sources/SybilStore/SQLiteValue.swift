/// A value bound to or read from an SQLite statement.
public enum SQLiteValue: Sendable, Hashable {
    /// SQL NULL.
    case null
    /// A 64-bit integer.
    case integer(Int64)
    /// A double.
    case real(Double)
    /// UTF-8 text.
    case text(String)
    /// Raw bytes.
    case blob([UInt8])
}

extension SQLiteValue {
    /// The integer, or `nil` for any other kind.
    public var integerValue: Int64? {
        if case .integer(let value) = self { return value }
        return nil
    }

    /// The text, or `nil` for any other kind.
    public var textValue: String? {
        if case .text(let value) = self { return value }
        return nil
    }

    /// The bytes, or `nil` for any other kind.
    public var blobValue: [UInt8]? {
        if case .blob(let value) = self { return value }
        return nil
    }

    /// Text, or NULL for `nil`.
    public static func optionalText(_ text: String?) -> SQLiteValue {
        text.map { .text($0) } ?? .null
    }
}
