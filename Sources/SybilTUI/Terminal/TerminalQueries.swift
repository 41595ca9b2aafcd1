/// Questions a session asks the terminal once it starts; the answers come back as input and
/// are decoded there.
public enum TerminalQueries {
    /// OSC 11: the background colour (`ESC ] 11 ; ? ESC \`), for choosing a light or dark theme.
    public static let backgroundColor: [UInt8] = Array("\u{1B}]11;?\u{1B}\\".utf8)
    /// Whether the kitty keyboard protocol is on, and with which flags (`CSI ? u`).
    public static let keyboardEnhancement: [UInt8] = Array("\u{1B}[?u".utf8)
    /// Primary device attributes (`CSI c`): every terminal answers, so its reply marks the end
    /// of the answers to the queries sent before it.
    public static let deviceAttributes: [UInt8] = Array("\u{1B}[c".utf8)

    /// All three, device attributes last.
    public static let startup: [UInt8] = backgroundColor + keyboardEnhancement + deviceAttributes
}
