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
        var output = ""
        write(value, into: &output, indent: 0)
        return output
    }

    /// `text` as a JSON string literal, quotes included.
    public static func quoted(_ text: String) -> String {
        var output = ""
        appendQuoted(text, to: &output)
        return output
    }

    private func write(_ value: JSONValue, into output: inout String, indent: Int) {
        switch value {
        case .null: output += "null"
        case .bool(let flag): output += flag ? "true" : "false"
        case .number(let number): output += number.literal
        case .string(let text): Self.appendQuoted(text, to: &output)
        case .array(let elements):
            if elements.isEmpty {
                output += "[]"
                return
            }
            output += "["
            for (position, element) in elements.enumerated() {
                if position > 0 { output += "," }
                newline(&output, indent: indent + 1)
                write(element, into: &output, indent: indent + 1)
            }
            newline(&output, indent: indent)
            output += "]"
        case .object(let object):
            if object.members.isEmpty {
                output += "{}"
                return
            }
            output += "{"
            for (position, member) in object.members.enumerated() {
                if position > 0 { output += "," }
                newline(&output, indent: indent + 1)
                Self.appendQuoted(member.key, to: &output)
                output += style == .pretty ? ": " : ":"
                write(member.value, into: &output, indent: indent + 1)
            }
            newline(&output, indent: indent)
            output += "}"
        }
    }

    private func newline(_ output: inout String, indent: Int) {
        guard style == .pretty else { return }
        output += "\n"
        output += String(repeating: "  ", count: indent)
    }

    private static func appendQuoted(_ text: String, to output: inout String) {
        output += "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": output += "\\\""
            case "\\": output += "\\\\"
            case "\n": output += "\\n"
            case "\r": output += "\\r"
            case "\t": output += "\\t"
            case "\u{08}": output += "\\b"
            case "\u{0C}": output += "\\f"
            case "\u{00}"..."\u{1F}", "\u{7F}", "\u{2028}", "\u{2029}":
                let hex = String(scalar.value, radix: 16)
                output += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default:
                output.unicodeScalars.append(scalar)
            }
        }
        output += "\""
    }
}
