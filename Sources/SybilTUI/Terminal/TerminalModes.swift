/// The terminal modes a full-screen session turns on, and the bytes that turn them on and off.
///
/// The enable sequence goes in a fixed order: alternate screen, bracketed paste, mouse
/// (buttons, drags, SGR coordinates), focus events, the kitty keyboard protocol (pushing flags
/// 1, disambiguate) and xterm's modifyOtherKeys level 2. The disable sequence ends synchronized
/// output first (a crash can land mid-frame), undoes the modes in reverse order and always ends
/// with the cursor shown and SGR reset, leaving the alternate screen last when it was entered.
public struct TerminalModes: Sendable, Hashable {
    /// Draw on the alternate screen (`CSI ? 1049 h`), leaving the shell's screen as it was.
    public var alternateScreen: Bool
    /// Mark pasted text (`CSI ? 2004 h`) so it arrives as one paste, not as keys.
    public var bracketedPaste: Bool
    /// Report clicks, drags and the wheel with SGR coordinates (`CSI ? 1000 h`, `1002`, `1006`).
    public var mouse: Bool
    /// Report focus in and out (`CSI ? 1004 h`).
    public var focusEvents: Bool
    /// The kitty keyboard protocol, disambiguated escape codes (`CSI > 1 u`, popped with `CSI < u`).
    public var kittyKeyboard: Bool
    /// xterm's modifyOtherKeys level 2 (`CSI > 4 ; 2 m`, reset with `CSI > 4 m`).
    public var modifyOtherKeys: Bool

    /// Creates a set of modes; every mode is off unless asked for.
    public init(
        alternateScreen: Bool = false, bracketedPaste: Bool = false, mouse: Bool = false, focusEvents: Bool = false,
        kittyKeyboard: Bool = false, modifyOtherKeys: Bool = false
    ) {
        self.alternateScreen = alternateScreen
        self.bracketedPaste = bracketedPaste
        self.mouse = mouse
        self.focusEvents = focusEvents
        self.kittyKeyboard = kittyKeyboard
        self.modifyOtherKeys = modifyOtherKeys
    }

    /// Everything on: what the full-screen app uses.
    public static let fullScreen = TerminalModes(
        alternateScreen: true, bracketedPaste: true, mouse: true, focusEvents: true, kittyKeyboard: true,
        modifyOtherKeys: true)

    /// No modes: raw input on the normal screen.
    public static let none = TerminalModes()

    /// The bytes that turn the modes on.
    public var enableSequence: [UInt8] {
        var text = ""
        if alternateScreen { text += "\u{1B}[?1049h" }
        if bracketedPaste { text += "\u{1B}[?2004h" }
        if mouse { text += "\u{1B}[?1000h\u{1B}[?1002h\u{1B}[?1006h" }
        if focusEvents { text += "\u{1B}[?1004h" }
        if kittyKeyboard { text += "\u{1B}[>1u" }
        if modifyOtherKeys { text += "\u{1B}[>4;2m" }
        return Array(text.utf8)
    }

    /// The bytes that turn the modes off again and leave the terminal usable: synchronized output
    /// ended, the modes undone in reverse order, the cursor shown, SGR reset, and the alternate
    /// screen left.
    public var disableSequence: [UInt8] {
        var text = "\u{1B}[?2026l"
        if modifyOtherKeys { text += "\u{1B}[>4m" }
        if kittyKeyboard { text += "\u{1B}[<u" }
        if focusEvents { text += "\u{1B}[?1004l" }
        if mouse { text += "\u{1B}[?1006l\u{1B}[?1002l\u{1B}[?1000l" }
        if bracketedPaste { text += "\u{1B}[?2004l" }
        text += "\u{1B}[?25h\u{1B}[0m"
        if alternateScreen { text += "\u{1B}[?1049l" }
        return Array(text.utf8)
    }
}
