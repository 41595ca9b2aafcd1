/// A JSON number kept exactly as written, so that `1` and `1.0` stay different and integer
/// range checks are exact rather than going through `Double`.
public struct JSONNumber: Sendable, Hashable, CustomStringConvertible {
    /// The literal text, valid per RFC 8259 (e.g. `-12`, `0.5`, `1e3`).
    public let literal: String
    /// Whether the literal has neither a fraction nor an exponent.
    public let isIntegerLiteral: Bool

    /// Wraps a literal that the caller has already validated.
    init(validatedLiteral literal: String, isIntegerLiteral: Bool) {
        self.literal = literal
        self.isIntegerLiteral = isIntegerLiteral
    }

    /// An integer number.
    public init(_ value: Int64) {
        literal = String(value)
        isIntegerLiteral = true
    }

    /// An unsigned integer number.
    public init(_ value: UInt64) {
        literal = String(value)
        isIntegerLiteral = true
    }

    /// A finite floating-point number, written in Swift's shortest round-trip form.
    public init?(_ value: Double) {
        guard value.isFinite else { return nil }
        if value == value.rounded(), abs(value) < 1e15 {
            literal = String(Int64(value))
            isIntegerLiteral = true
        } else {
            literal = "\(value)"
            isIntegerLiteral = false
        }
    }

    /// The value as `Int64` when the literal is an integer literal that fits, else `nil`.
    /// `1.0`, `1e0` and `9223372036854775808` all give `nil`.
    public var int64Value: Int64? {
        guard isIntegerLiteral else { return nil }
        return Int64(literal)
    }

    /// The value as `UInt64` when the literal is a non-negative integer literal that fits.
    /// `-0` counts as zero.
    public var uint64Value: UInt64? {
        guard isIntegerLiteral else { return nil }
        if literal == "-0" { return 0 }
        return UInt64(literal)
    }

    /// The nearest `Double` (may be infinite for huge exponents).
    public var doubleValue: Double {
        Double(literal) ?? .nan
    }

    /// The literal text.
    public var description: String { literal }
}
