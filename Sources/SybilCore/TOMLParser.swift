/// The reader behind ``TOMLDocument/init(parsing:)``: one pass over the text's scalars,
/// each error at the line and column where it was found.
struct TOMLParser {
    typealias Table = TOMLDocument.Table
    typealias Value = TOMLDocument.Value

    /// The largest document read.
    static let maximumBytes = 1 << 20
    /// The deepest nesting of arrays and inline tables.
    static let maximumDepth = 256

    private let scalars: [Unicode.Scalar]
    private let tooLarge: Bool
    private var index = 0
    private var line = 1
    private var column = 1
    private var depth = 0
    /// Where each `key = value` statement's value starts, by full key path.
    private(set) var places: [[String]: TOMLDocument.Place] = [:]

    init(_ text: String) {
        tooLarge = text.utf8.count > Self.maximumBytes
        scalars = tooLarge ? [] : Array(text.unicodeScalars)
    }

    mutating func parseDocument() throws(TOMLDocument.ParseError) -> Table {
        if tooLarge { throw error("the file is larger than \(Self.maximumBytes) bytes") }
        var root = Table()
        var current: [String] = []
        var headers: Set<[String]> = []
        while true {
            skipSpaces()
            guard let scalar = peek else { break }
            switch scalar {
            case "#", "\n", "\r":
                try endOfLine()
            case "[":
                let (startLine, startColumn) = (line, column)
                advance()
                if peek == "[" { throw error("arrays of tables ([[…]]) are not supported here") }
                skipSpaces()
                let path = try dottedKey()
                skipSpaces()
                try expect("]", "expected ] to close the table header")
                try endOfLine()
                guard headers.insert(path).inserted else {
                    throw TOMLDocument.ParseError(
                        line: startLine, column: startColumn,
                        reason: "the table [\(path.joined(separator: "."))] is defined twice")
                }
                try Self.openTable(path, in: &root, at: (startLine, startColumn))
                current = path
            default:
                let (startLine, startColumn) = (line, column)
                let (path, value, place) = try keyValue()
                try endOfLine()
                try Self.insert(value, at: current + path, in: &root, at: (startLine, startColumn))
                places[current + path] = place
            }
        }
        return root
    }

    // MARK: Tables

    private static func openTable(_ path: [String], in table: inout Table, at place: (Int, Int))
        throws(TOMLDocument.ParseError)
    {
        guard let first = path.first else { return }
        var nested = try subtable(first, of: table, at: place)
        try openTable(Array(path.dropFirst()), in: &nested, at: place)
        table[first] = .table(nested)
    }

    /// The table under `key` (a new one when there is none yet); an error when `key` holds a
    /// value that is not a table.
    private static func subtable(_ key: String, of table: Table, at place: (Int, Int))
        throws(TOMLDocument.ParseError) -> Table
    {
        switch table[key] {
        case nil: return Table()
        case .table(let existing)?: return existing
        case _?:
            throw TOMLDocument.ParseError(
                line: place.0, column: place.1, reason: "\(key) already holds a value, not a table")
        }
    }

    private static func insert(_ value: Value, at path: [String], in table: inout Table, at place: (Int, Int))
        throws(TOMLDocument.ParseError)
    {
        guard let first = path.first else { return }
        if path.count == 1 {
            guard table[first] == nil else {
                throw TOMLDocument.ParseError(
                    line: place.0, column: place.1, reason: "the key \(first) is defined twice")
            }
            table[first] = value
            return
        }
        var nested = try subtable(first, of: table, at: place)
        try insert(value, at: Array(path.dropFirst()), in: &nested, at: place)
        table[first] = .table(nested)
    }

    // MARK: Keys and values

    private mutating func keyValue() throws(TOMLDocument.ParseError) -> ([String], Value, TOMLDocument.Place) {
        let path = try dottedKey()
        skipSpaces()
        try expect("=", "expected = after the key \(path.joined(separator: "."))")
        skipSpaces()
        let place = TOMLDocument.Place(line: line, column: column)
        return (path, try value(), place)
    }

    private mutating func dottedKey() throws(TOMLDocument.ParseError) -> [String] {
        var path = [try simpleKey()]
        while true {
            skipSpaces()
            guard peek == "." else { return path }
            advance()
            skipSpaces()
            path.append(try simpleKey())
        }
    }

    private mutating func simpleKey() throws(TOMLDocument.ParseError) -> String {
        switch peek {
        case "\"": return try basicString()
        case "'": return try literalString()
        default:
            var key = ""
            while let scalar = peek, Self.isBareKey(scalar) {
                key.unicodeScalars.append(scalar)
                advance()
            }
            guard !key.isEmpty else { throw error("expected a key (letters, digits, - or _, or a quoted key)") }
            return key
        }
    }

    private static func isBareKey(_ scalar: Unicode.Scalar) -> Bool {
        ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar) || scalar == "_"
            || scalar == "-"
    }

    private mutating func value() throws(TOMLDocument.ParseError) -> Value {
        switch peek {
        case "\"":
            if lookingAt("\"\"\"") { throw error("multi-line strings are not supported here") }
            return .string(try basicString())
        case "'":
            if lookingAt("'''") { throw error("multi-line strings are not supported here") }
            return .string(try literalString())
        case "[": return try nested { (parser: inout TOMLParser) throws(TOMLDocument.ParseError) in try parser.array() }
        case "{":
            return try nested { (parser: inout TOMLParser) throws(TOMLDocument.ParseError) in try parser.inlineTable() }
        case "t", "f": return .boolean(try boolean())
        case let scalar? where scalar == "+" || scalar == "-" || ("0"..."9").contains(scalar):
            return .integer(try integer())
        case nil: throw error("expected a value, found the end of the file")
        default: throw error("expected a value (a string in quotes, a number, true, false, [ or {)")
        }
    }

    private mutating func nested(_ body: (inout TOMLParser) throws(TOMLDocument.ParseError) -> Value)
        throws(TOMLDocument.ParseError) -> Value
    {
        depth += 1
        defer { depth -= 1 }
        if depth > Self.maximumDepth { throw error("values are nested deeper than \(Self.maximumDepth)") }
        return try body(&self)
    }

    private mutating func array() throws(TOMLDocument.ParseError) -> Value {
        advance()  // [
        var items: [Value] = []
        while true {
            try skipSpacesCommentsAndNewlines()
            if peek == "]" {
                advance()
                return .array(items)
            }
            items.append(try value())
            try skipSpacesCommentsAndNewlines()
            switch peek {
            case ",": advance()
            case "]":
                advance()
                return .array(items)
            default: throw error("expected , or ] in the array")
            }
        }
    }

    private mutating func inlineTable() throws(TOMLDocument.ParseError) -> Value {
        let (startLine, startColumn) = (line, column)
        advance()  // {
        var table = Table()
        skipSpaces()
        if peek == "}" {
            advance()
            return .table(table)
        }
        while true {
            skipSpaces()
            let (keyLine, keyColumn) = (line, column)
            let (path, value, _) = try keyValue()
            try Self.insert(value, at: path, in: &table, at: (keyLine, keyColumn))
            skipSpaces()
            switch peek {
            case ",": advance()
            case "}":
                advance()
                return .table(table)
            case "\n", "\r", nil:
                throw TOMLDocument.ParseError(
                    line: startLine, column: startColumn, reason: "an inline table must end with } on its line")
            default: throw error("expected , or } in the inline table")
            }
        }
    }

    private mutating func boolean() throws(TOMLDocument.ParseError) -> Bool {
        if lookingAt("true") {
            for _ in 0..<4 { advance() }
            return true
        }
        if lookingAt("false") {
            for _ in 0..<5 { advance() }
            return false
        }
        throw error("expected a value (a string in quotes, a number, true, false, [ or {)")
    }

    private mutating func integer() throws(TOMLDocument.ParseError) -> Int64 {
        let (startLine, startColumn) = (line, column)
        var text = ""
        if let sign = peek, sign == "+" || sign == "-" {
            text.unicodeScalars.append(sign)
            advance()
        }
        var digits = ""
        var lastWasDigit = false
        while let scalar = peek, ("0"..."9").contains(scalar) || scalar == "_" {
            if scalar == "_" {
                guard lastWasDigit else { throw error("an underscore in a number must stand between digits") }
                lastWasDigit = false
            } else {
                digits.unicodeScalars.append(scalar)
                lastWasDigit = true
            }
            advance()
        }
        let fail = { (reason: String) in TOMLDocument.ParseError(line: startLine, column: startColumn, reason: reason) }
        guard lastWasDigit, !digits.isEmpty else { throw fail("expected a whole number") }
        if let scalar = peek, scalar == "." || scalar == "e" || scalar == "E" || Self.isBareKey(scalar) {
            throw error("only whole numbers are supported here")
        }
        guard digits == "0" || !digits.hasPrefix("0") else { throw fail("a number may not start with 0") }
        guard let number = Int64(text + digits) else { throw fail("the number \(text + digits) is out of range") }
        return number
    }

    private mutating func basicString() throws(TOMLDocument.ParseError) -> String {
        advance()  // "
        var text = ""
        while true {
            guard let scalar = peek else { throw error("the string is not closed with \"") }
            switch scalar {
            case "\"":
                advance()
                return text
            case "\\":
                advance()
                text.unicodeScalars.append(try escape())
            case "\n", "\r": throw error("the string is not closed with \" on its line")
            default:
                if scalar.value < 0x20 && scalar != "\t" || scalar.value == 0x7F {
                    throw error("a control character must be escaped in a string")
                }
                text.unicodeScalars.append(scalar)
                advance()
            }
        }
    }

    private mutating func escape() throws(TOMLDocument.ParseError) -> Unicode.Scalar {
        guard let scalar = peek else { throw error("the string is not closed with \"") }
        advance()
        switch scalar {
        case "b": return "\u{08}"
        case "t": return "\t"
        case "n": return "\n"
        case "f": return "\u{0C}"
        case "r": return "\r"
        case "\"": return "\""
        case "\\": return "\\"
        case "u", "U":
            let count = scalar == "u" ? 4 : 8
            var hex = ""
            for _ in 0..<count {
                guard let digit = peek, digit.properties.isASCIIHexDigit else {
                    throw error("\\\(scalar) needs \(count) hexadecimal digits")
                }
                hex.unicodeScalars.append(digit)
                advance()
            }
            guard let value = UInt32(hex, radix: 16), let escaped = Unicode.Scalar(value) else {
                throw error("\\\(scalar)\(hex) is not a Unicode scalar value")
            }
            return escaped
        default:
            throw error("\\\(scalar) is not an escape (use \\\\ for a backslash)")
        }
    }

    private mutating func literalString() throws(TOMLDocument.ParseError) -> String {
        advance()  // '
        var text = ""
        while true {
            guard let scalar = peek else { throw error("the string is not closed with '") }
            if scalar == "'" {
                advance()
                return text
            }
            if scalar == "\n" || scalar == "\r" { throw error("the string is not closed with ' on its line") }
            if scalar.value < 0x20 && scalar != "\t" || scalar.value == 0x7F {
                throw error("a literal string may not hold a control character")
            }
            text.unicodeScalars.append(scalar)
            advance()
        }
    }

    // MARK: Whitespace and lines

    private var peek: Unicode.Scalar? { index < scalars.count ? scalars[index] : nil }

    private func lookingAt(_ text: String) -> Bool {
        var position = index
        for scalar in text.unicodeScalars {
            guard position < scalars.count, scalars[position] == scalar else { return false }
            position += 1
        }
        return true
    }

    private mutating func advance() {
        guard index < scalars.count else { return }
        if scalars[index] == "\n" {
            line += 1
            column = 1
        } else {
            column += 1
        }
        index += 1
    }

    private mutating func skipSpaces() {
        while let scalar = peek, scalar == " " || scalar == "\t" { advance() }
    }

    private mutating func skipComment() throws(TOMLDocument.ParseError) {
        guard peek == "#" else { return }
        while let scalar = peek, scalar != "\n", scalar != "\r" {
            if scalar.value < 0x20 && scalar != "\t" || scalar.value == 0x7F {
                throw error("a comment may not hold a control character")
            }
            advance()
        }
    }

    private mutating func skipSpacesCommentsAndNewlines() throws(TOMLDocument.ParseError) {
        while true {
            skipSpaces()
            try skipComment()
            guard let scalar = peek, scalar == "\n" || scalar == "\r" else { return }
            try newline()
        }
    }

    private mutating func newline() throws(TOMLDocument.ParseError) {
        if peek == "\r" {
            advance()
            guard peek == "\n" else { throw error("a carriage return must be followed by a line feed") }
        }
        advance()
    }

    /// Spaces, an optional comment, then a line end or the end of the file.
    private mutating func endOfLine() throws(TOMLDocument.ParseError) {
        skipSpaces()
        try skipComment()
        guard let scalar = peek else { return }
        guard scalar == "\n" || scalar == "\r" else { throw error("expected the end of the line") }
        try newline()
    }

    private mutating func expect(_ scalar: Unicode.Scalar, _ reason: String) throws(TOMLDocument.ParseError) {
        guard peek == scalar else { throw error(reason) }
        advance()
    }

    private func error(_ reason: String) -> TOMLDocument.ParseError {
        TOMLDocument.ParseError(line: line, column: column, reason: reason)
    }
}
