/// A complete CSI sequence (`ESC [ parameters final`) split into its parts, and what it means
/// as terminal input.
///
/// Parameters are fields separated by `;`, each with sub-fields separated by `:` (the kitty
/// keyboard protocol uses them for alternate keys and event types). A number above
/// ``largestNumber`` makes the whole sequence invalid instead of overflowing, so
/// `CSI 99999999999999999999A` is dropped like any other malformed input.
struct ControlSequence: Hashable {
    /// The largest parameter value accepted; larger ones make the sequence invalid.
    static let largestNumber = 9_999_999

    /// A private marker before the parameters: `<`, `=`, `>` or `?`.
    var marker: UInt8?
    /// The parameter fields, each a list of sub-fields (`nil` where a sub-field was empty).
    var fields: [[Int?]]
    /// The final byte, 0x40–0x7E.
    var final: UInt8
    /// Whether the parameters parsed: numbers in range, no stray or intermediate bytes.
    var isValid: Bool

    /// Parses the bytes between `ESC [` and the final byte.
    init(parameters: ArraySlice<UInt8>, final: UInt8) {
        self.final = final
        var bytes = parameters
        marker = nil
        if let first = bytes.first, (0x3C...0x3F).contains(first) {
            marker = first
            bytes = bytes.dropFirst()
        }
        var fields: [[Int?]] = [[nil]]
        var valid = true
        for byte in bytes {
            switch byte {
            case 0x30...0x39:
                let digit = Int(byte - 0x30)
                let current = fields[fields.count - 1].last! ?? 0
                guard current <= (Self.largestNumber - digit) / 10 else {
                    valid = false
                    break
                }
                fields[fields.count - 1][fields[fields.count - 1].count - 1] = current * 10 + digit
            case 0x3B: fields.append([nil])
            case 0x3A: fields[fields.count - 1].append(nil)
            default: valid = false
            }
            if !valid { break }
        }
        self.fields = fields
        isValid = valid
    }

    /// The value of a parameter, `nil` when absent or empty.
    func parameter(_ field: Int, _ subfield: Int = 0) -> Int? {
        guard field < fields.count, subfield < fields[field].count else { return nil }
        return fields[field][subfield]
    }

    /// Whether any parameter beyond the first `count` fields is present.
    private func hasFields(beyond count: Int) -> Bool {
        fields.dropFirst(count).contains { $0.contains { $0 != nil } || $0.count > 1 }
    }

    /// The input this sequence stands for, or `nil` when it is not one the decoder knows.
    /// A bracketed paste start (`CSI 200 ~`) is handled by the decoder, not here.
    func input() -> TerminalInput? {
        guard isValid else { return nil }
        switch marker {
        case nil: return plainInput()
        case UInt8(ascii: "<"): return mouseInput()
        case UInt8(ascii: "?"):
            if final == UInt8(ascii: "u") { return .keyboardEnhancementFlags(parameter(0) ?? 0) }
            if final == UInt8(ascii: "c") { return .deviceAttributes }
            return nil
        default: return nil
        }
    }

    private func plainInput() -> TerminalInput? {
        switch final {
        case UInt8(ascii: "I"), UInt8(ascii: "O"):
            guard fields == [[nil]] else { return nil }
            return .focus(final == UInt8(ascii: "I"))
        case UInt8(ascii: "~"): return tildeInput()
        case UInt8(ascii: "u"): return kittyInput()
        case UInt8(ascii: "Z"):
            guard let modifiers = keyModifiers() else { return nil }
            return .key(KeyEvent(.tab, modifiers: modifiers.union(.shift)))
        default:
            guard let key = Self.letterKeys[final] else { return nil }
            // `CSI row ; column R` is a cursor position report; only `CSI 1 ; m R` is F3.
            if final == UInt8(ascii: "R"), (parameter(0) ?? 1) != 1 { return nil }
            return keyInput(key)
        }
    }

    /// A key with xterm modifiers in the second field, dropping kitty key-release events.
    private func keyInput(_ key: Key) -> TerminalInput? {
        guard let modifiers = keyModifiers() else { return nil }
        if parameter(1, 1) == 3 { return nil }
        return .key(KeyEvent(key, modifiers: modifiers))
    }

    /// The modifiers encoded as `1 + bits` in the second field; `nil` when out of range.
    private func keyModifiers(field: Int = 1) -> KeyModifiers? {
        guard let value = parameter(field) else { return [] }
        guard value >= 1, value <= 256 else { return value == 0 ? [] : nil }
        return KeyModifiers(rawValue: UInt8((value - 1) & 0x0F))
    }

    private func tildeInput() -> TerminalInput? {
        guard let number = parameter(0) else { return nil }
        if number == 27 {
            // xterm modifyOtherKeys: CSI 27 ; modifiers ; code ~
            guard let code = parameter(2), !hasFields(beyond: 3),
                let key = Self.key(forCodepoint: code),
                let modifiers = keyModifiers()
            else { return nil }
            return .key(KeyEvent(key, modifiers: modifiers))
        }
        guard let key = Self.tildeKeys[number] else { return nil }
        return keyInput(key)
    }

    /// The kitty keyboard protocol's `CSI code[:shifted[:base]] ; modifiers[:event] ; text u`
    /// (also xterm's `formatOtherKeys: 1`). A shifted key the terminal reports replaces the
    /// code when Shift is the only modifier, so Shift+a reads `"A"` as in other terminals.
    private func kittyInput() -> TerminalInput? {
        guard let code = parameter(0), var key = Self.key(forCodepoint: code),
            var modifiers = keyModifiers()
        else { return nil }
        if parameter(1, 1) == 3 { return nil }
        if modifiers == .shift, let shifted = parameter(0, 1),
            case .character = key, let shiftedKey = Self.key(forCodepoint: shifted),
            case .character = shiftedKey
        {
            key = shiftedKey
            modifiers = []
        }
        return .key(KeyEvent(key, modifiers: modifiers))
    }

    /// SGR mouse: `CSI < button ; column ; row M` (press, motion) or `m` (release).
    private func mouseInput() -> TerminalInput? {
        let isPress = final == UInt8(ascii: "M")
        guard isPress || final == UInt8(ascii: "m"), fields.count == 3,
            let code = parameter(0), let column = parameter(1), let row = parameter(2),
            column >= 1, row >= 1, code < 128
        else { return nil }
        var modifiers: KeyModifiers = []
        if code & 4 != 0 { modifiers.insert(.shift) }
        if code & 8 != 0 { modifiers.insert(.alt) }
        if code & 16 != 0 { modifiers.insert(.control) }
        let low = code & 3
        let buttons: [MouseButton] = [.left, .middle, .right]
        let kind: MouseEvent.Kind
        if code & 64 != 0 {
            guard isPress else { return nil }
            kind = [.scrollUp, .scrollDown, .scrollLeft, .scrollRight][low]
        } else if code & 32 != 0 {
            kind = low == 3 ? .move : .drag(buttons[low])
        } else {
            guard low < 3 else { return nil }
            kind = isPress ? .press(buttons[low]) : .release(buttons[low])
        }
        return .mouse(MouseEvent(kind, column: column - 1, row: row - 1, modifiers: modifiers))
    }

    /// Keys sent as `CSI [1 ; modifiers] letter` (and as `ESC O letter`).
    static let letterKeys: [UInt8: Key] = [
        UInt8(ascii: "A"): .up, UInt8(ascii: "B"): .down, UInt8(ascii: "C"): .right,
        UInt8(ascii: "D"): .left, UInt8(ascii: "H"): .home, UInt8(ascii: "F"): .end,
        UInt8(ascii: "P"): .function(1), UInt8(ascii: "Q"): .function(2),
        UInt8(ascii: "R"): .function(3), UInt8(ascii: "S"): .function(4),
    ]

    /// Keys sent as `CSI number [; modifiers] ~` (VT220, xterm, rxvt, kitty).
    static let tildeKeys: [Int: Key] = [
        1: .home, 2: .insert, 3: .delete, 4: .end, 5: .pageUp, 6: .pageDown, 7: .home, 8: .end,
        11: .function(1), 12: .function(2), 13: .function(3), 14: .function(4), 15: .function(5),
        17: .function(6), 18: .function(7), 19: .function(8), 20: .function(9), 21: .function(10),
        23: .function(11), 24: .function(12), 25: .function(13), 26: .function(14),
        28: .function(15), 29: .function(16), 31: .function(17), 32: .function(18),
        33: .function(19), 34: .function(20),
    ]

    /// The key for a kitty or modifyOtherKeys code: a Unicode code point, or one of kitty's
    /// functional keys in the private use area (keypad, F13–F24). Modifier keys on their own,
    /// lock keys and media keys give `nil`.
    static func key(forCodepoint code: Int) -> Key? {
        switch code {
        case 13: return .enter
        case 9: return .tab
        case 27: return .escape
        case 8, 127: return .backspace
        case 57399...57408: return .character(Character(String(code - 57399)))
        case 57376...57387: return .function(code - 57376 + 13)
        case 57344...63743: return kittyKeypad[code]
        case 0..<32, 0x80..<0xA0: return nil
        default:
            guard let scalar = Unicode.Scalar(UInt32(code)) else { return nil }
            return .character(Character(scalar))
        }
    }

    private static let kittyKeypad: [Int: Key] = [
        57409: .character("."), 57410: .character("/"), 57411: .character("*"),
        57412: .character("-"), 57413: .character("+"), 57414: .enter, 57415: .character("="),
        57416: .character(","), 57417: .left, 57418: .right, 57419: .up, 57420: .down,
        57421: .pageUp, 57422: .pageDown, 57423: .home, 57424: .end, 57425: .insert,
        57426: .delete,
    ]
}
