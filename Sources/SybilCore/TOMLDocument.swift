/// A strict reader and writer for the subset of TOML 1.0 that Sybil's configuration file uses:
/// `key = value` pairs under `[table]` headers (dotted, bare or quoted keys), comments, basic
/// and literal strings, integers, booleans, arrays of those, and inline tables. Anything
/// else, a key defined twice, or a table opened twice is an error naming the line and column.
public struct TOMLDocument: Sendable, Hashable {
    /// A value.
    public indirect enum Value: Sendable, Hashable {
        /// A string.
        case string(String)
        /// An integer (64-bit).
        case integer(Int64)
        /// `true` or `false`.
        case boolean(Bool)
        /// An array.
        case array([Value])
        /// A table: keys in the order they were written.
        case table(Table)
    }

    /// Keys and values in the order they were written.
    public struct Table: Sendable, Hashable {
        /// The entries, in order.
        public private(set) var entries: [(key: String, value: Value)] = []

        /// An empty table.
        public init() {}

        /// The value of `key`.
        public subscript(key: String) -> Value? {
            get { entries.first { $0.key == key }?.value }
            set {
                if let index = entries.firstIndex(where: { $0.key == key }) {
                    if let newValue { entries[index].value = newValue } else { entries.remove(at: index) }
                } else if let newValue {
                    entries.append((key, newValue))
                }
            }
        }

        /// The keys, in order.
        public var keys: [String] { entries.map(\.key) }

        public static func == (a: Table, b: Table) -> Bool {
            a.entries.count == b.entries.count
                && zip(a.entries, b.entries).allSatisfy { $0.key == $1.key && $0.value == $1.value }
        }

        public func hash(into hasher: inout Hasher) {
            for entry in entries {
                hasher.combine(entry.key)
                hasher.combine(entry.value)
            }
        }
    }

    /// Why a document cannot be read: the place and the rule.
    public struct ParseError: Error, Sendable, Hashable, CustomStringConvertible {
        /// 1-based line.
        public var line: Int
        /// 1-based column (in characters).
        public var column: Int
        /// What is wrong there.
        public var reason: String

        /// "line 3, column 7: <reason>".
        public var description: String { "line \(line), column \(column): \(reason)" }
    }

    /// Where a value was written: 1-based line and column (in characters).
    public struct Place: Sendable, Hashable {
        /// 1-based line.
        public var line: Int
        /// 1-based column (in characters).
        public var column: Int

        /// A place.
        public init(line: Int, column: Int) {
            self.line = line
            self.column = column
        }

        /// An error at this place: "line 3, column 7: <reason>".
        public func error(_ reason: String) -> ParseError {
            ParseError(line: line, column: column, reason: reason)
        }
    }

    /// The top-level table.
    public var root: Table
    /// Where each value written as `key = value` starts, by its full key path (the table's
    /// keys then the key's own parts), so a reader checking a value's range can name the line
    /// and column; empty for a document that was not parsed. Not part of equality.
    public private(set) var places: [[String]: Place] = [:]

    /// A document holding `root`.
    public init(root: Table = Table()) {
        self.root = root
    }

    /// Reads `text`; at most 1 MiB and 256 levels of nesting.
    public init(parsing text: String) throws(ParseError) {
        var parser = TOMLParser(text)
        root = try parser.parseDocument()
        places = parser.places
    }

    /// Equal when the values are (where they were written does not count).
    public static func == (a: TOMLDocument, b: TOMLDocument) -> Bool {
        a.root == b.root
    }

    /// Hashes the values.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(root)
    }

    /// The document as TOML: the root's plain values first, then each table (and nested
    /// tables) under its header; strings quoted with every control character escaped.
    public func formatted() -> String {
        var output = ""
        Self.write(root, path: [], into: &output)
        return output
    }

    private static func write(_ table: Table, path: [String], into output: inout String) {
        let plain = table.entries.filter { if case .table = $0.value { false } else { true } }
        if !path.isEmpty, !plain.isEmpty || table.entries.isEmpty {
            if !output.isEmpty { output += "\n" }
            output += "[" + path.map(key).joined(separator: ".") + "]\n"
        }
        for entry in plain { output += "\(key(entry.key)) = \(value(entry.value))\n" }
        for entry in table.entries {
            if case .table(let nested) = entry.value { write(nested, path: path + [entry.key], into: &output) }
        }
    }

    /// A key as written: bare when it can be, else quoted.
    public static func key(_ key: String) -> String {
        let bare =
            !key.isEmpty
            && key.unicodeScalars.allSatisfy { scalar in
                ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar)
                    || scalar == "_" || scalar == "-"
            }
        return bare ? key : quoted(key)
    }

    /// A value as written.
    public static func value(_ value: Value) -> String {
        switch value {
        case .string(let text): quoted(text)
        case .integer(let number): String(number)
        case .boolean(let flag): flag ? "true" : "false"
        case .array(let items): "[" + items.map { Self.value($0) }.joined(separator: ", ") + "]"
        case .table(let table):
            "{ " + table.entries.map { "\(key($0.key)) = \(Self.value($0.value))" }.joined(separator: ", ") + " }"
        }
    }

    private static func quoted(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\t": result += "\\t"
            case "\r": result += "\\r"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F {
                    let hex = String(scalar.value, radix: 16, uppercase: true)
                    result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    result.unicodeScalars.append(scalar)
                }
            }
        }
        return result + "\""
    }
}
