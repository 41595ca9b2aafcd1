/// A strict RFC 8259 JSON reader.
///
/// Unlike Foundation's readers on Linux it rejects trailing commas, leading zeros, bare
/// control characters, invalid UTF-8, lone surrogate escapes and a byte-order mark; it keeps
/// numbers as exact literals; and it enforces a nesting depth and a size limit, so that
/// hostile input ends in an error rather than a stack overflow. Errors carry the byte offset
/// and the JSON path of the value being read.
public struct JSONReader: Sendable {
    /// Bounds on what one document may contain.
    public struct Limits: Sendable, Hashable {
        /// Deepest allowed nesting of arrays and objects (the root container is depth 1).
        public var maxDepth: Int
        /// Largest allowed document, in bytes.
        public var maxBytes: Int

        /// Limits with the given bounds.
        public init(maxDepth: Int = 512, maxBytes: Int = 64 << 20) {
            precondition(maxDepth > 0 && maxBytes > 0, "JSON limits must be positive")
            self.maxDepth = maxDepth
            self.maxBytes = maxBytes
        }

        /// 512 levels and 64 MiB.
        public static let standard = Limits()
    }

    /// The limits this reader enforces.
    public var limits: Limits

    /// A reader with the given limits.
    public init(limits: Limits = .standard) {
        self.limits = limits
    }

    /// Parses a complete document from UTF-8 bytes (an array, a slice of one, or any other
    /// collection; contiguous storage is read in place).
    public func parse(_ bytes: some Collection<UInt8>) throws(JSONError) -> JSONValue {
        guard bytes.count <= limits.maxBytes else {
            throw JSONError(
                kind: .limit, path: .root, offset: limits.maxBytes,
                message: "document is \(bytes.count) bytes; the limit is \(limits.maxBytes) bytes")
        }
        let parse = { (buffer: UnsafeBufferPointer<UInt8>) -> Result<JSONValue, JSONParseFailure> in
            var parser = JSONParser(bytes: buffer, maxDepth: limits.maxDepth)
            do throws(JSONParseFailure) {
                return .success(try parser.parseDocument())
            } catch {
                return .failure(error)
            }
        }
        let result = bytes.withContiguousStorageIfAvailable(parse) ?? Array(bytes).withUnsafeBufferPointer(parse)
        switch result {
        case .success(let value):
            return value
        case .failure(let failure):
            throw failure.jsonError
        }
    }

    /// Parses a complete document from a string.
    public func parse(_ text: String) throws(JSONError) -> JSONValue {
        try parse(Array(text.utf8))
    }
}

/// A parse failure on its way up; components are collected innermost first.
struct JSONParseFailure: Error {
    var kind: JSONError.Kind
    var offset: Int
    var message: String
    var reversedPath: [JSONPath.Component] = []

    var jsonError: JSONError {
        JSONError(kind: kind, path: JSONPath(components: reversedPath.reversed()), offset: offset, message: message)
    }
}

/// The recursive-descent parser behind ``JSONReader``.
struct JSONParser {
    private let bytes: UnsafeBufferPointer<UInt8>
    private let maxDepth: Int
    private var index = 0

    init(bytes: UnsafeBufferPointer<UInt8>, maxDepth: Int) {
        self.bytes = bytes
        self.maxDepth = maxDepth
    }

    mutating func parseDocument() throws(JSONParseFailure) -> JSONValue {
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF {
            throw failure(at: 0, "a byte-order mark is not allowed before JSON text")
        }
        skipWhitespace()
        let value = try parseValue(depth: 0)
        skipWhitespace()
        if index < bytes.count {
            throw failure(at: index, "unexpected \(describeByte(at: index)) after the end of the JSON value")
        }
        return value
    }

    // MARK: Values

    private mutating func parseValue(depth: Int) throws(JSONParseFailure) -> JSONValue {
        guard index < bytes.count else {
            throw failure(at: index, "unexpected end of input; expected a value")
        }
        switch bytes[index] {
        case UInt8(ascii: "{"):
            return try parseObject(depth: depth + 1)
        case UInt8(ascii: "["):
            return try parseArray(depth: depth + 1)
        case UInt8(ascii: "\""):
            return .string(try parseString())
        case UInt8(ascii: "t"):
            try expectLiteral("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try expectLiteral("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try expectLiteral("null")
            return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return .number(try parseNumber())
        default:
            throw failure(at: index, "unexpected \(describeByte(at: index)); expected a value")
        }
    }

    private mutating func parseArray(depth: Int) throws(JSONParseFailure) -> JSONValue {
        try checkDepth(depth)
        index += 1  // [
        skipWhitespace()
        var elements: [JSONValue] = []
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
            index += 1
            return .array(elements)
        }
        while true {
            do {
                elements.append(try parseValue(depth: depth))
            } catch {
                var error = error
                error.reversedPath.append(.index(elements.count))
                throw error
            }
            skipWhitespace()
            guard index < bytes.count else {
                throw failure(at: index, "unexpected end of input; expected ',' or ']'")
            }
            let byte = bytes[index]
            index += 1
            if byte == UInt8(ascii: "]") { return .array(elements) }
            guard byte == UInt8(ascii: ",") else {
                throw failure(at: index - 1, "unexpected \(describeByte(at: index - 1)); expected ',' or ']'")
            }
            skipWhitespace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
                throw failure(at: index, "trailing comma before ']'")
            }
        }
    }

    private mutating func parseObject(depth: Int) throws(JSONParseFailure) -> JSONValue {
        try checkDepth(depth)
        index += 1  // {
        skipWhitespace()
        var members: [JSONMember] = []
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
            index += 1
            return .object(JSONObject(members))
        }
        while true {
            guard index < bytes.count else {
                throw failure(at: index, "unexpected end of input; expected a member name")
            }
            guard bytes[index] == UInt8(ascii: "\"") else {
                if bytes[index] == UInt8(ascii: "}") && !members.isEmpty {
                    throw failure(at: index, "trailing comma before '}'")
                }
                throw failure(at: index, "unexpected \(describeByte(at: index)); expected a member name in quotes")
            }
            let key = try parseString()
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else {
                var error = failure(
                    at: index,
                    index < bytes.count
                        ? "unexpected \(describeByte(at: index)); expected ':' after the member name"
                        : "unexpected end of input; expected ':'")
                error.reversedPath.append(.key(key))
                throw error
            }
            index += 1
            skipWhitespace()
            do {
                members.append(JSONMember(key, try parseValue(depth: depth)))
            } catch {
                var error = error
                error.reversedPath.append(.key(key))
                throw error
            }
            skipWhitespace()
            guard index < bytes.count else {
                throw failure(at: index, "unexpected end of input; expected ',' or '}'")
            }
            let byte = bytes[index]
            index += 1
            if byte == UInt8(ascii: "}") { return .object(JSONObject(members)) }
            guard byte == UInt8(ascii: ",") else {
                throw failure(at: index - 1, "unexpected \(describeByte(at: index - 1)); expected ',' or '}'")
            }
            skipWhitespace()
        }
    }

    private func checkDepth(_ depth: Int) throws(JSONParseFailure) {
        if depth > maxDepth {
            throw JSONParseFailure(
                kind: .limit, offset: index, message: "nesting is deeper than the limit of \(maxDepth) levels")
        }
    }

    private mutating func expectLiteral(_ literal: StaticString) throws(JSONParseFailure) {
        let start = index
        let count = literal.utf8CodeUnitCount
        guard bytes.count - index >= count else {
            throw failure(at: start, "invalid literal; expected '\(literal)'")
        }
        let expected = UnsafeBufferPointer(start: literal.utf8Start, count: count)
        for offset in 0..<count where bytes[index + offset] != expected[offset] {
            throw failure(at: start, "invalid literal; expected '\(literal)'")
        }
        index += count
    }

    // MARK: Numbers

    private mutating func parseNumber() throws(JSONParseFailure) -> JSONNumber {
        let start = index
        let isInteger: Bool
        do {
            (index, isInteger) = try JSONNumberGrammar.scan(bytes, from: start)
        } catch {
            throw failure(at: error.offset, error.message)
        }
        let literal = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        return JSONNumber(validatedLiteral: literal, isIntegerLiteral: isInteger)
    }

    // MARK: Strings

    private mutating func parseString() throws(JSONParseFailure) -> String {
        let open = index
        index += 1  // "
        let start = index
        var asciiOnly = true
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let raw = UnsafeBufferPointer(rebasing: bytes[start..<index])
                index += 1
                if asciiOnly { return String(decoding: raw, as: UTF8.self) }
                guard let text = String(validating: raw, as: UTF8.self) else {
                    throw failure(at: start + invalidUTF8Offset(raw), "a string contains invalid UTF-8")
                }
                return text
            }
            if byte == UInt8(ascii: "\\") {
                return try parseEscapedString(from: start)
            }
            if byte < 0x20 {
                throw failure(at: index, "a string may not contain the control character \(hexByte(byte)) unescaped")
            }
            if byte >= 0x80 { asciiOnly = false }
            index += 1
        }
        throw failure(at: open, "a string is not terminated")
    }

    /// The slow path, once a backslash has been seen: collects the unescaped bytes.
    private mutating func parseEscapedString(from start: Int) throws(JSONParseFailure) -> String {
        var output: [UInt8] = []
        output.reserveCapacity(index - start + 16)
        output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<index]))
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                guard let text = String(validating: output, as: UTF8.self) else {
                    throw failure(at: start, "a string contains invalid UTF-8")
                }
                return text
            case UInt8(ascii: "\\"):
                try parseEscape(into: &output)
            case 0..<0x20:
                throw failure(at: index, "a string may not contain the control character \(hexByte(byte)) unescaped")
            default:
                output.append(byte)
                index += 1
            }
        }
        throw failure(at: start - 1, "a string is not terminated")
    }

    private mutating func parseEscape(into output: inout [UInt8]) throws(JSONParseFailure) {
        let escapeStart = index
        index += 1  // backslash
        guard index < bytes.count else { throw failure(at: escapeStart, "a string is not terminated") }
        let byte = bytes[index]
        index += 1
        switch byte {
        case UInt8(ascii: "\""): output.append(UInt8(ascii: "\""))
        case UInt8(ascii: "\\"): output.append(UInt8(ascii: "\\"))
        case UInt8(ascii: "/"): output.append(UInt8(ascii: "/"))
        case UInt8(ascii: "b"): output.append(0x08)
        case UInt8(ascii: "f"): output.append(0x0C)
        case UInt8(ascii: "n"): output.append(0x0A)
        case UInt8(ascii: "r"): output.append(0x0D)
        case UInt8(ascii: "t"): output.append(0x09)
        case UInt8(ascii: "u"):
            let unit = try parseHex4(escapeStart: escapeStart)
            var scalarValue = UInt32(unit)
            if (0xD800...0xDBFF).contains(unit) {
                guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u")
                else {
                    throw failure(at: escapeStart, "a high surrogate escape must be followed by a low surrogate escape")
                }
                index += 2
                let low = try parseHex4(escapeStart: index - 2)
                guard (0xDC00...0xDFFF).contains(low) else {
                    throw failure(at: index - 6, "a high surrogate escape must be followed by a low surrogate escape")
                }
                scalarValue = 0x10000 + ((UInt32(unit) - 0xD800) << 10) + (UInt32(low) - 0xDC00)
            } else if (0xDC00...0xDFFF).contains(unit) {
                throw failure(at: escapeStart, "a low surrogate escape without a high surrogate before it")
            }
            guard let scalar = Unicode.Scalar(scalarValue) else {
                throw failure(at: escapeStart, "invalid Unicode escape")
            }
            output.append(contentsOf: UTF8.encode(scalar)!)
        default:
            throw failure(at: escapeStart, "invalid escape '\\\(describeEscapedByte(byte))' in a string")
        }
    }

    private mutating func parseHex4(escapeStart: Int) throws(JSONParseFailure) -> UInt16 {
        guard bytes.count - index >= 4 else {
            throw failure(at: escapeStart, "a \\u escape needs four hexadecimal digits")
        }
        var value: UInt16 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw failure(at: escapeStart, "a \\u escape needs four hexadecimal digits")
            }
            value = value << 4 | UInt16(digit)
            index += 1
        }
        return value
    }

    // MARK: Helpers

    @inline(__always)
    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x0A, 0x0D, 0x09: index += 1
            default: return
            }
        }
    }

    private func failure(at offset: Int, _ message: String) -> JSONParseFailure {
        JSONParseFailure(kind: .syntax, offset: offset, message: message)
    }

    private func describeByte(at offset: Int) -> String {
        JSONByteText.describe(bytes[offset])
    }

    private func describeEscapedByte(_ byte: UInt8) -> String {
        byte >= 0x21 && byte < 0x7F ? String(Character(Unicode.Scalar(byte))) : hexByte(byte)
    }

    private func hexByte(_ byte: UInt8) -> String {
        JSONByteText.hex(byte)
    }

    /// The offset of the first byte that makes `raw` invalid UTF-8 (for the error message).
    private func invalidUTF8Offset(_ raw: UnsafeBufferPointer<UInt8>) -> Int {
        var decoder = UTF8()
        var iterator = raw.makeIterator()
        var consumed = 0
        var position = 0
        while true {
            switch decoder.decode(&iterator) {
            case .scalarValue(let scalar):
                position += UTF8.width(scalar)
                consumed = position
            case .emptyInput:
                return consumed
            case .error:
                return consumed
            }
        }
    }
}
