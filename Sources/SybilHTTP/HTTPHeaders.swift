/// Request and response header fields; names compare case-insensitively, order is kept. The
/// client's HTTP and WebSocket code (SybilNet) and the server (SybilServer) share this one type.
public struct HTTPHeaders: Sendable, Hashable, Sequence {
    /// The fields in order.
    public private(set) var fields: [(name: String, value: String)] = []

    /// Headers from `(name, value)` pairs.
    public init(_ fields: [(String, String)] = []) {
        self.fields = fields.map { (name: $0.0, value: $0.1) }
    }

    /// The first value of `name`.
    public subscript(name: String) -> String? {
        fields.first { Self.sameName($0.name, name) }?.value
    }

    /// Every value of `name`, in order (a field sent twice is two values).
    public func values(named name: String) -> [String] {
        fields.compactMap { Self.sameName($0.name, name) ? $0.value : nil }
    }

    /// Adds a field, keeping earlier ones with the same name.
    public mutating func append(_ name: String, _ value: String) {
        fields.append((name, value))
    }

    /// Sets `name` to `value`, replacing earlier values.
    public mutating func set(_ name: String, _ value: String) {
        fields.removeAll { Self.sameName($0.name, name) }
        fields.append((name, value))
    }

    /// Removes every field named `name`.
    public mutating func remove(_ name: String) {
        fields.removeAll { Self.sameName($0.name, name) }
    }

    /// Whether the comma-separated list in `name` holds `token`, ignoring ASCII case and the
    /// optional white space around each element (`Connection: keep-alive, Upgrade`).
    public func listContains(_ name: String, token: String) -> Bool {
        guard let value = self[name] else { return false }
        return value.split(separator: ",").contains { Self.sameName(Self.trimmed($0), token) }
    }

    /// `value` without the optional white space (spaces and tabs) at either end (RFC 9110 §5.5).
    static func trimmed(_ value: Substring) -> String {
        let isWhiteSpace = { (character: Character) in character == " " || character == "\t" }
        guard let first = value.firstIndex(where: { !isWhiteSpace($0) }),
            let last = value.lastIndex(where: { !isWhiteSpace($0) })
        else { return "" }
        return String(value[first...last])
    }

    /// Whether `byte` may stand in a token (a method, a field name): visible ASCII except the
    /// delimiters (RFC 9110 §5.6.2).
    @inline(__always)
    static func isTokenByte(_ byte: UInt8) -> Bool {
        // One bit per byte below 128: `!#$%&'*+-.^_`|~`, digits and letters (a table in two
        // words, so no lazily built global is touched per byte).
        byte < 64
            ? (0x03FF_6CFA_0000_0000 as UInt64) >> byte & 1 == 1
            : byte < 128 && (0x57FF_FFFF_C7FF_FFFE as UInt64) >> (byte - 64) & 1 == 1
    }

    /// The name and the value of one field line, a header's or a trailer's (RFC 9112 §5,
    /// RFC 9110 §5): `line` (without its CRLF, and without a CR, LF or NUL: the head decoder and
    /// the trailer reader refuse those first) in `bytes` is a token name, a colon right after it
    /// (white space before the colon is refused, RFC 9112 §5.1), and a value without the optional
    /// white space at either end. A line starting with white space (obs-fold) is refused. `kind`
    /// (`header`, `trailer`) names the line in errors, which quote at most 80 bytes of it.
    static func fieldLine(
        in bytes: UnsafeBufferPointer<UInt8>, _ line: Range<Int>, kind: String
    ) throws(HTTPHeadError) -> (name: Range<Int>, value: Range<Int>) {
        // The name is read in one pass up to the first byte that is not a token byte, which
        // must be its colon.
        var colon = line.lowerBound
        while colon < line.upperBound, isTokenByte(bytes[colon]) { colon += 1 }
        guard colon < line.upperBound, bytes[colon] == UInt8(ascii: ":"), colon > line.lowerBound else {
            throw fieldLineFault(in: bytes, line, kind: kind)
        }
        var valueStart = colon + 1
        var valueEnd = line.upperBound
        while valueStart < valueEnd, bytes[valueStart] == 0x20 || bytes[valueStart] == 0x09 { valueStart += 1 }
        while valueEnd > valueStart, bytes[valueEnd - 1] == 0x20 || bytes[valueEnd - 1] == 0x09 { valueEnd -= 1 }
        return (line.lowerBound..<colon, valueStart..<valueEnd)
    }

    /// What is wrong with a field line whose name is not a token followed by a colon.
    private static func fieldLineFault(
        in bytes: UnsafeBufferPointer<UInt8>, _ line: Range<Int>, kind: String
    ) -> HTTPHeadError {
        func quoted(_ range: Range<Int>) -> String {
            let shown = range.lowerBound..<Swift.min(range.upperBound, range.lowerBound + 80)
            return String(decoding: UnsafeBufferPointer(rebasing: bytes[shown]), as: UTF8.self).debugDescription
        }
        guard let first = line.first.map({ bytes[$0] }), first != 0x20, first != 0x09 else {
            return .malformed("a \(kind) line starts with white space (folded lines are not allowed)")
        }
        guard let colon = line.first(where: { bytes[$0] == UInt8(ascii: ":") }) else {
            return .malformed("the \(kind) line \(quoted(line)) has no colon")
        }
        let name = line.lowerBound..<colon
        guard let fault = name.first(where: { !isTokenByte(bytes[$0]) }) else {
            return .malformed("a \(kind) line has no name before its colon")
        }
        if name[fault...].allSatisfy({ bytes[$0] == 0x20 || bytes[$0] == 0x09 }) {
            return .malformed("white space between the \(kind) name \(quoted(name.lowerBound..<fault)) and its colon")
        }
        return .malformed("the \(kind) name \(quoted(name)) is not a token")
    }

    /// Makes room for `count` fields.
    mutating func reserveCapacity(_ count: Int) {
        fields.reserveCapacity(count)
    }

    /// ``sameName(_:_:)`` after a length check: the request path compares every field name
    /// with a few known ones, and most differ in length (`utf8.count` costs nothing on a
    /// native string).
    static func isNamed(_ name: String, _ expected: String) -> Bool {
        name.utf8.count == expected.utf8.count && sameName(name, expected)
    }

    /// Whether two field names are equal ignoring ASCII case (names are ASCII tokens).
    static func sameName(_ lhs: String, _ rhs: String) -> Bool {
        var left = lhs.utf8.makeIterator()
        var right = rhs.utf8.makeIterator()
        while true {
            switch (left.next(), right.next()) {
            case (nil, nil): return true
            case (let a?, let b?):
                if a == b { continue }
                guard a | 0x20 == b | 0x20, (a | 0x20) >= 0x61, (a | 0x20) <= 0x7A else { return false }
            default: return false
            }
        }
    }

    /// The fields in order.
    public func makeIterator() -> IndexingIterator<[(name: String, value: String)]> {
        fields.makeIterator()
    }

    /// Equal when the same fields (names as written) come in the same order.
    public static func == (lhs: HTTPHeaders, rhs: HTTPHeaders) -> Bool {
        lhs.fields.elementsEqual(rhs.fields) { $0.name == $1.name && $0.value == $1.value }
    }

    /// Hashes the fields in order.
    public func hash(into hasher: inout Hasher) {
        for field in fields {
            hasher.combine(field.name)
            hasher.combine(field.value)
        }
    }
}
