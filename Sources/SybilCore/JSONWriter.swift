/// Writes ``JSONValue`` trees as RFC 8259 text: members in their stored order, numbers as
/// their exact literals, strings escaped so that the output is plain ASCII-safe JSON.
public struct JSONWriter: Sendable {
    /// How the output is laid out.
    public enum Style: Sendable, Hashable {
        /// One line, no spaces.
        case compact
        /// Two-space indentation, one member or element per line.
        case pretty
    }

    /// The layout of the output.
    public var style: Style

    /// A writer with the given style.
    public init(style: Style = .compact) {
        self.style = style
    }

    /// The JSON text of `value`.
    public func string(from value: JSONValue) -> String {
        String(decoding: bytes(from: value), as: UTF8.self)
    }

    /// The JSON text of `value` as UTF-8 bytes (what storage and sockets want).
    public func bytes(from value: JSONValue) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(256)
        write(value, into: &output, indent: 0)
        return output
    }

    /// `text` as a JSON string literal, quotes included.
    public static func quoted(_ text: String) -> String {
        var output: [UInt8] = []
        appendQuoted(text, to: &output)
        return String(decoding: output, as: UTF8.self)
    }

    private func write(_ value: JSONValue, into output: inout [UInt8], indent: Int) {
        switch value {
        case .null: output.append(contentsOf: "null".utf8)
        case .bool(let flag): output.append(contentsOf: (flag ? "true" : "false").utf8)
        case .number(let number): output.append(contentsOf: number.literal.utf8)
        case .string(let text): Self.appendQuoted(text, to: &output)
        case .array(let elements):
            if elements.isEmpty {
                output.append(contentsOf: "[]".utf8)
                return
            }
            output.append(UInt8(ascii: "["))
            for (position, element) in elements.enumerated() {
                if position > 0 { output.append(UInt8(ascii: ",")) }
                newline(&output, indent: indent + 1)
                write(element, into: &output, indent: indent + 1)
            }
            newline(&output, indent: indent)
            output.append(UInt8(ascii: "]"))
        case .object(let object):
            if object.members.isEmpty {
                output.append(contentsOf: "{}".utf8)
                return
            }
            output.append(UInt8(ascii: "{"))
            for (position, member) in object.members.enumerated() {
                if position > 0 { output.append(UInt8(ascii: ",")) }
                newline(&output, indent: indent + 1)
                Self.appendQuoted(member.key, to: &output)
                output.append(UInt8(ascii: ":"))
                if style == .pretty { output.append(UInt8(ascii: " ")) }
                write(member.value, into: &output, indent: indent + 1)
            }
            newline(&output, indent: indent)
            output.append(UInt8(ascii: "}"))
        }
    }

    private func newline(_ output: inout [UInt8], indent: Int) {
        guard style == .pretty else { return }
        output.append(0x0A)
        output.append(contentsOf: repeatElement(UInt8(ascii: " "), count: 2 * indent))
    }

    /// Appends `text` quoted: runs that need no escape are copied as they are; control
    /// characters, quote, backslash, DEL, U+2028, U+2029 and the explicit bidi controls are
    /// escaped.
    private static func appendQuoted(_ text: String, to output: inout [UInt8]) {
        output.append(UInt8(ascii: "\""))
        var text = text
        text.withUTF8 { bytes in
            var runStart = 0
            var index = 0
            while index < bytes.count {
                let byte = bytes[index]
                let escape: [UInt8]?
                var width = 1
                switch byte {
                case UInt8(ascii: "\""): escape = Array("\\\"".utf8)
                case UInt8(ascii: "\\"): escape = Array("\\\\".utf8)
                case 0x0A: escape = Array("\\n".utf8)
                case 0x0D: escape = Array("\\r".utf8)
                case 0x09: escape = Array("\\t".utf8)
                case 0x08: escape = Array("\\b".utf8)
                case 0x0C: escape = Array("\\f".utf8)
                case 0x00...0x1F, 0x7F: escape = unicodeEscape(UInt32(byte))
                case 0xC2 where index + 1 < bytes.count && (0x80...0x9F).contains(bytes[index + 1]):
                    // A C1 control (U+0080–U+009F; U+009B is a terminal's CSI): escaped as the C0
                    // ones are, so that `--json` from a server's text puts none on a terminal.
                    escape = unicodeEscape(UInt32(bytes[index + 1]))
                    width = 2
                case 0xE2 where index + 2 < bytes.count && Self.isEscapedFormat(bytes[index + 1], bytes[index + 2]):
                    // U+2028 and U+2029 end a line in JavaScript; the explicit bidi controls
                    // (U+202A–U+202E, U+2066–U+2069) would reorder what a terminal shows (see
                    // `TerminalText`). Escaped, the text stays exact.
                    let value = 0x2000 | UInt32(bytes[index + 1] & 0x3F) << 6 | UInt32(bytes[index + 2] & 0x3F)
                    escape = unicodeEscape(value)
                    width = 3
                default: escape = nil
                }
                if let escape {
                    output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<index]))
                    output.append(contentsOf: escape)
                    index += width
                    runStart = index
                } else {
                    index += 1
                }
            }
            output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<bytes.count]))
        }
        output.append(UInt8(ascii: "\""))
    }

    /// Whether U+2000 + (`second`, `third`), the last two bytes of a scalar's UTF-8 after E2, is
    /// U+2028, U+2029, U+202A–U+202E or U+2066–U+2069.
    @inline(__always)
    private static func isEscapedFormat(_ second: UInt8, _ third: UInt8) -> Bool {
        switch second {
        case 0x80: (0xA8...0xAE).contains(third)
        case 0x81: (0xA6...0xA9).contains(third)
        default: false
        }
    }

    private static func unicodeEscape(_ value: UInt32) -> [UInt8] {
        let hex = String(value, radix: 16)
        return Array(("\\u" + String(repeating: "0", count: 4 - hex.count) + hex).utf8)
    }
}
