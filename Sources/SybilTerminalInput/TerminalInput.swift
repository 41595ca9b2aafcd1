/// One thing the terminal told the app, decoded from the bytes it sent.
public enum TerminalInput: Sendable, Hashable {
    /// A key press (with modifiers).
    case key(KeyEvent)
    /// Text pasted with bracketed paste mode on, delivered whole (never as keys).
    case paste(String)
    /// A mouse button, motion or wheel report (SGR 1006 encoding).
    case mouse(MouseEvent)
    /// The terminal window gained (`true`) or lost focus (focus reporting, `CSI I` / `CSI O`).
    case focus(Bool)
    /// The answer to an OSC 11 query: the background colour, each channel scaled to 0–65535.
    case backgroundColor(red: UInt16, green: UInt16, blue: UInt16)
    /// The answer to a kitty keyboard protocol query (`CSI ? flags u`): the flags in effect.
    case keyboardEnhancementFlags(Int)
    /// The answer to a device attributes query (`CSI c`), the end of a negotiation round.
    case deviceAttributes
}

/// A key and the modifiers held with it.
public struct KeyEvent: Sendable, Hashable {
    /// The key.
    public var key: Key
    /// Shift, Alt, Control, Super.
    public var modifiers: KeyModifiers

    /// Creates a key event.
    public init(_ key: Key, modifiers: KeyModifiers = []) {
        self.key = key
        self.modifiers = modifiers
    }
}

/// A key on the keyboard. A control chord such as Ctrl+C is ``character(_:)`` `"c"` with
/// ``KeyModifiers/control``; a shifted letter arrives as its capital without ``KeyModifiers/shift``
/// unless the terminal reports modifiers explicitly.
public enum Key: Sendable, Hashable {
    /// A printable character.
    case character(Character)
    /// Return or Enter.
    case enter
    /// Tab (Shift+Tab is `.tab` with ``KeyModifiers/shift``).
    case tab
    /// Backspace.
    case backspace
    /// Esc on its own.
    case escape
    /// An arrow key.
    case up, down, left, right
    /// Home and End.
    case home, end
    /// Page Up and Page Down.
    case pageUp, pageDown
    /// Insert and Delete (forward delete).
    case insert, delete
    /// F1…F24.
    case function(Int)
}

/// The modifiers held with a key or a mouse event.
public struct KeyModifiers: OptionSet, Sendable, Hashable {
    /// The raw bits.
    public let rawValue: UInt8

    /// Creates a modifier set from raw bits.
    public init(rawValue: UInt8) {
        self.rawValue = rawValue
    }

    /// Shift.
    public static let shift = KeyModifiers(rawValue: 1 << 0)
    /// Alt (Option, Meta).
    public static let alt = KeyModifiers(rawValue: 1 << 1)
    /// Control.
    public static let control = KeyModifiers(rawValue: 1 << 2)
    /// Super (Command, Windows).
    public static let `super` = KeyModifiers(rawValue: 1 << 3)
}

/// A mouse report at a cell (0-based column and row).
public struct MouseEvent: Sendable, Hashable {
    /// What happened.
    public enum Kind: Sendable, Hashable {
        /// A button went down.
        case press(MouseButton)
        /// A button went up.
        case release(MouseButton)
        /// The mouse moved with a button held.
        case drag(MouseButton)
        /// The mouse moved with no button held.
        case move
        /// The wheel turned away from the user (content scrolls up).
        case scrollUp
        /// The wheel turned towards the user.
        case scrollDown
        /// A horizontal wheel step left.
        case scrollLeft
        /// A horizontal wheel step right.
        case scrollRight
    }

    /// What happened.
    public var kind: Kind
    /// The column, from 0.
    public var column: Int
    /// The row, from 0.
    public var row: Int
    /// Modifiers held.
    public var modifiers: KeyModifiers

    /// Creates a mouse event.
    public init(_ kind: Kind, column: Int, row: Int, modifiers: KeyModifiers = []) {
        self.kind = kind
        self.column = column
        self.row = row
        self.modifiers = modifiers
    }
}

/// A mouse button.
public enum MouseButton: Sendable, Hashable {
    /// The primary (usually left) button.
    case left
    /// The middle button or wheel click.
    case middle
    /// The secondary (usually right) button.
    case right
}
