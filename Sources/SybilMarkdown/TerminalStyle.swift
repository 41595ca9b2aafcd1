/// ANSI SGR sequences for the Markdown styles, or nothing when colour is off.
struct TerminalStyle {
    let color: Bool

    /// The SGR parameters for a run style.
    static func parameters(_ style: MarkdownStyle) -> [String] {
        var codes: [String] = []
        if style.contains(.strong) { codes.append("1") }
        if style.contains(.emphasis) { codes.append("3") }
        if style.contains(.link) { codes.append("4") }
        if style.contains(.code) { codes.append("7") }
        if style.contains(.strikethrough) { codes.append("9") }
        return codes
    }

    /// `text` wrapped in SGR `parameters` and a reset; `text` alone without colour.
    func apply(_ parameters: [String], _ text: String) -> String {
        guard color, !parameters.isEmpty, !text.isEmpty else { return text }
        return "\u{1B}[" + parameters.joined(separator: ";") + "m" + text + "\u{1B}[0m"
    }

    /// Bold.
    func bold(_ text: String) -> String { apply(["1"], text) }
    /// Dim (faint).
    func dim(_ text: String) -> String { apply(["2"], text) }
}

/// One rendered line and the columns its visible text takes.
struct TerminalLine: Hashable {
    var text: String
    var width: Int

    static let empty = TerminalLine(text: "", width: 0)
}
