/// RFC 8259's number grammar over bytes (`-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`),
/// the one definition the tree reader (``JSONReader``) and the chat chunk scanner both step
/// over numbers with, so the two accept and refuse exactly the same literals with the same
/// words.
public enum JSONNumberGrammar {
    /// Why the bytes are not a number: the offset of the offending byte and one sentence.
    public struct Failure: Error, Sendable, Hashable {
        /// Where in the bytes.
        public let offset: Int
        /// What is wrong, e.g. `a number needs a digit after '-'`.
        public let message: String

        /// A failure at `offset`.
        @inlinable
        public init(offset: Int, message: String) {
            self.offset = offset
            self.message = message
        }
    }

    /// Steps over the number that starts at `start` (a `-` or a digit): the offset just after
    /// it, and whether it is an integer literal (no fraction, no exponent).
    @inlinable
    public static func scan(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int) throws(Failure)
        -> (end: Int, isInteger: Bool)
    {
        @inline(__always) func isDigit(_ byte: UInt8) -> Bool { byte &- UInt8(ascii: "0") < 10 }
        var index = start
        var isInteger = true
        if index < bytes.count, bytes[index] == UInt8(ascii: "-") { index += 1 }
        guard index < bytes.count, isDigit(bytes[index]) else {
            throw Failure(offset: index, message: "a number needs a digit after '-'")
        }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
            if index < bytes.count, isDigit(bytes[index]) {
                throw Failure(offset: start, message: "a number may not have a leading zero")
            }
        } else {
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            isInteger = false
            index += 1
            guard index < bytes.count, isDigit(bytes[index]) else {
                throw Failure(offset: index, message: "a number needs a digit after the decimal point")
            }
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        if index < bytes.count, bytes[index] | 0x20 == UInt8(ascii: "e") {
            isInteger = false
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                index += 1
            }
            guard index < bytes.count, isDigit(bytes[index]) else {
                throw Failure(offset: index, message: "a number needs a digit in its exponent")
            }
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        return (index, isInteger)
    }
}
