import Testing

@testable import SybilTUI

/// One row of the terminal table: what a terminal sends for a key and what it decodes to.
struct TerminalSample: CustomTestStringConvertible, Sendable {
    var terminal: String
    var name: String
    var bytes: [UInt8]
    var expected: [TerminalInput]

    var testDescription: String { "\(terminal): \(name)" }

    init(_ terminal: String, _ name: String, _ bytes: String, _ expected: TerminalInput...) {
        self.terminal = terminal
        self.name = name
        self.bytes = Array(bytes.utf8)
        self.expected = expected
    }
}

private func key(_ key: Key, _ modifiers: KeyModifiers = []) -> TerminalInput {
    .key(KeyEvent(key, modifiers: modifiers))
}

private func char(_ character: Character, _ modifiers: KeyModifiers = []) -> TerminalInput {
    .key(KeyEvent(.character(character), modifiers: modifiers))
}

private func decode(_ bytes: [UInt8]) -> [TerminalInput] {
    var decoder = TerminalInputDecoder()
    return decoder.feed(bytes)
}

/// Sequences as terminals send them. Sources: xterm's ctlseqs ("PC-Style Function Keys",
/// "VT220-Style Function Keys", "Alt and Meta Keys", modifyOtherKeys, "Bracketed Paste Mode",
/// "SGR (1006)" mouse, OSC 11, DA1); the kitty keyboard protocol documentation
/// (sw.kovidgoyal.net/kitty/keyboard-protocol: CSI u, functional key codes, event types,
/// alternate keys, `CSI ? flags u`); tmux's input-keys.c key table (Home/End as `CSI 1~`/`CSI 4~`,
/// cursor keys as SS3 in application cursor mode, xterm-style modifiers, extended keys);
/// xterm.js's Keyboard.ts (VS Code's terminal: Ctrl+Backspace as BS, Alt+Backspace as ESC DEL,
/// `CSI 1;3D` for Alt+Left); VTE's keymap (GNOME Terminal: SS3 keypad Enter, `CSI 1;5P`).
let terminalSamples: [TerminalSample] = [
    // xterm, normal cursor mode, metaSendsEscape, modifyOtherKeys 2.
    TerminalSample("xterm", "Up", "\u{1B}[A", key(.up)),
    TerminalSample("xterm", "Down", "\u{1B}[B", key(.down)),
    TerminalSample("xterm", "Right", "\u{1B}[C", key(.right)),
    TerminalSample("xterm", "Left", "\u{1B}[D", key(.left)),
    TerminalSample("xterm", "Home", "\u{1B}[H", key(.home)),
    TerminalSample("xterm", "End", "\u{1B}[F", key(.end)),
    TerminalSample("xterm", "Up, application cursor mode", "\u{1B}OA", key(.up)),
    TerminalSample("xterm", "F1", "\u{1B}OP", key(.function(1))),
    TerminalSample("xterm", "F2", "\u{1B}OQ", key(.function(2))),
    TerminalSample("xterm", "F3", "\u{1B}OR", key(.function(3))),
    TerminalSample("xterm", "F4", "\u{1B}OS", key(.function(4))),
    TerminalSample("xterm", "F5", "\u{1B}[15~", key(.function(5))),
    TerminalSample("xterm", "F6", "\u{1B}[17~", key(.function(6))),
    TerminalSample("xterm", "F7", "\u{1B}[18~", key(.function(7))),
    TerminalSample("xterm", "F8", "\u{1B}[19~", key(.function(8))),
    TerminalSample("xterm", "F9", "\u{1B}[20~", key(.function(9))),
    TerminalSample("xterm", "F10", "\u{1B}[21~", key(.function(10))),
    TerminalSample("xterm", "F11", "\u{1B}[23~", key(.function(11))),
    TerminalSample("xterm", "F12", "\u{1B}[24~", key(.function(12))),
    TerminalSample("xterm", "Insert", "\u{1B}[2~", key(.insert)),
    TerminalSample("xterm", "Delete", "\u{1B}[3~", key(.delete)),
    TerminalSample("xterm", "Page Up", "\u{1B}[5~", key(.pageUp)),
    TerminalSample("xterm", "Page Down", "\u{1B}[6~", key(.pageDown)),
    TerminalSample("xterm", "Ctrl+Up", "\u{1B}[1;5A", key(.up, .control)),
    TerminalSample("xterm", "Shift+Alt+Right", "\u{1B}[1;4C", key(.right, [.shift, .alt])),
    TerminalSample("xterm", "Ctrl+Shift+Alt+Super+Home", "\u{1B}[1;16H", key(.home, [.shift, .alt, .control, .super])),
    TerminalSample("xterm", "Shift+F1", "\u{1B}[1;2P", key(.function(1), .shift)),
    TerminalSample("xterm", "Ctrl+Delete", "\u{1B}[3;5~", key(.delete, .control)),
    TerminalSample("xterm", "Shift+Tab", "\u{1B}[Z", key(.tab, .shift)),
    TerminalSample("xterm", "Shift+Enter, modifyOtherKeys", "\u{1B}[27;2;13~", key(.enter, .shift)),
    TerminalSample("xterm", "Ctrl+Enter, modifyOtherKeys", "\u{1B}[27;5;13~", key(.enter, .control)),
    TerminalSample("xterm", "Ctrl+Tab, modifyOtherKeys", "\u{1B}[27;5;9~", key(.tab, .control)),
    TerminalSample("xterm", "Alt+x", "\u{1B}x", char("x", .alt)),
    TerminalSample("xterm", "Alt+Enter", "\u{1B}\r", key(.enter, .alt)),
    TerminalSample("xterm", "Alt+Backspace", "\u{1B}\u{7F}", key(.backspace, .alt)),
    TerminalSample("xterm", "Backspace", "\u{7F}", key(.backspace)),
    TerminalSample("xterm", "Enter", "\r", key(.enter)),
    TerminalSample("xterm", "Tab", "\t", key(.tab)),
    TerminalSample("xterm", "Ctrl+A", "\u{01}", char("a", .control)),
    TerminalSample("xterm", "Ctrl+C", "\u{03}", char("c", .control)),
    TerminalSample("xterm", "Ctrl+J", "\n", char("j", .control)),
    TerminalSample("xterm", "Ctrl+Z", "\u{1A}", char("z", .control)),
    TerminalSample("xterm", "Ctrl+Space", "\u{00}", char(" ", .control)),
    TerminalSample("xterm", "Ctrl+Backslash", "\u{1C}", char("\\", .control)),
    TerminalSample("xterm", "Ctrl+Alt+A", "\u{1B}\u{01}", char("a", [.control, .alt])),
    TerminalSample("xterm", "focus in", "\u{1B}[I", .focus(true)),
    TerminalSample("xterm", "focus out", "\u{1B}[O", .focus(false)),
    TerminalSample(
        "xterm", "left press at 10,5", "\u{1B}[<0;10;5M", .mouse(MouseEvent(.press(.left), column: 9, row: 4))),
    TerminalSample("xterm", "left release", "\u{1B}[<0;10;5m", .mouse(MouseEvent(.release(.left), column: 9, row: 4))),
    TerminalSample("xterm", "middle press", "\u{1B}[<1;1;1M", .mouse(MouseEvent(.press(.middle), column: 0, row: 0))),
    TerminalSample("xterm", "right press", "\u{1B}[<2;3;4M", .mouse(MouseEvent(.press(.right), column: 2, row: 3))),
    TerminalSample("xterm", "left drag", "\u{1B}[<32;11;5M", .mouse(MouseEvent(.drag(.left), column: 10, row: 4))),
    TerminalSample("xterm", "motion, no button", "\u{1B}[<35;80;24M", .mouse(MouseEvent(.move, column: 79, row: 23))),
    TerminalSample("xterm", "wheel up", "\u{1B}[<64;10;5M", .mouse(MouseEvent(.scrollUp, column: 9, row: 4))),
    TerminalSample(
        "xterm", "Ctrl+wheel down", "\u{1B}[<81;10;5M",
        .mouse(MouseEvent(.scrollDown, column: 9, row: 4, modifiers: .control))),
    TerminalSample("xterm", "wheel left", "\u{1B}[<66;2;2M", .mouse(MouseEvent(.scrollLeft, column: 1, row: 1))),
    TerminalSample(
        "xterm", "Shift+Alt wheel right", "\u{1B}[<79;2;2M",
        .mouse(MouseEvent(.scrollRight, column: 1, row: 1, modifiers: [.shift, .alt]))),
    TerminalSample(
        "xterm", "background, ST", "\u{1B}]11;rgb:ffff/ffff/ffff\u{1B}\\",
        .backgroundColor(red: 0xFFFF, green: 0xFFFF, blue: 0xFFFF)),
    TerminalSample(
        "xterm", "background, BEL", "\u{1B}]11;rgb:1e1e/2020/3030\u{07}",
        .backgroundColor(red: 0x1E1E, green: 0x2020, blue: 0x3030)),
    TerminalSample("xterm", "device attributes", "\u{1B}[?64;1;2;6;9;15;18;21;22c", .deviceAttributes),
    TerminalSample("xterm", "bracketed paste", "\u{1B}[200~hello\u{1B}[201~", .paste("hello")),

    // tmux 3.x (TERM=tmux-256color), xterm-keys on, extended-keys on.
    TerminalSample("tmux", "Up, application cursor mode", "\u{1B}OA", key(.up)),
    TerminalSample("tmux", "Up", "\u{1B}[A", key(.up)),
    TerminalSample("tmux", "Home", "\u{1B}[1~", key(.home)),
    TerminalSample("tmux", "End", "\u{1B}[4~", key(.end)),
    TerminalSample("tmux", "Ctrl+Up", "\u{1B}[1;5A", key(.up, .control)),
    TerminalSample("tmux", "Ctrl+Right", "\u{1B}[1;5C", key(.right, .control)),
    TerminalSample("tmux", "F1", "\u{1B}OP", key(.function(1))),
    TerminalSample("tmux", "F5", "\u{1B}[15~", key(.function(5))),
    TerminalSample("tmux", "Shift+Tab", "\u{1B}[Z", key(.tab, .shift)),
    TerminalSample("tmux", "Shift+Enter, extended keys", "\u{1B}[27;2;13~", key(.enter, .shift)),
    TerminalSample("tmux", "Shift+Enter, extended keys csi-u", "\u{1B}[13;2u", key(.enter, .shift)),
    TerminalSample("tmux", "Alt+Up, meta as Esc", "\u{1B}\u{1B}[A", key(.up, .alt)),
    TerminalSample("tmux", "focus in", "\u{1B}[I", .focus(true)),

    // kitty, keyboard protocol flags 1 (disambiguate) and 31 where noted.
    TerminalSample("kitty", "Esc", "\u{1B}[27u", key(.escape)),
    TerminalSample("kitty", "Shift+Enter", "\u{1B}[13;2u", key(.enter, .shift)),
    TerminalSample("kitty", "Ctrl+Enter", "\u{1B}[13;5u", key(.enter, .control)),
    TerminalSample("kitty", "Shift+Tab", "\u{1B}[9;2u", key(.tab, .shift)),
    TerminalSample("kitty", "Ctrl+Backspace", "\u{1B}[127;5u", key(.backspace, .control)),
    TerminalSample("kitty", "Alt+Esc", "\u{1B}[27;3u", key(.escape, .alt)),
    TerminalSample("kitty", "Ctrl+A", "\u{1B}[97;5u", char("a", .control)),
    TerminalSample("kitty", "Ctrl+Shift+A", "\u{1B}[97;6u", char("a", [.control, .shift])),
    TerminalSample("kitty", "Alt+a", "\u{1B}[97;3u", char("a", .alt)),
    TerminalSample("kitty", "Ctrl+i (not Tab)", "\u{1B}[105;5u", char("i", .control)),
    TerminalSample("kitty", "Shift+a with alternate keys (flags 31)", "\u{1B}[97:65;2u", char("A")),
    TerminalSample("kitty", "a release (flags 31)", "\u{1B}[97;1:3u"),
    TerminalSample("kitty", "a repeat (flags 31)", "\u{1B}[97;1:2u", char("a")),
    TerminalSample("kitty", "Up", "\u{1B}[A", key(.up)),
    TerminalSample("kitty", "Up release (flags 31)", "\u{1B}[1;1:3A"),
    TerminalSample("kitty", "Ctrl+Up", "\u{1B}[1;5A", key(.up, .control)),
    TerminalSample("kitty", "F1", "\u{1B}[P", key(.function(1))),
    TerminalSample("kitty", "F3", "\u{1B}[13~", key(.function(3))),
    TerminalSample("kitty", "Shift+F3", "\u{1B}[13;2~", key(.function(3), .shift)),
    TerminalSample("kitty", "F13", "\u{1B}[57376u", key(.function(13))),
    TerminalSample("kitty", "keypad Enter (flags 31)", "\u{1B}[57414u", key(.enter)),
    TerminalSample("kitty", "keypad 7 (flags 31)", "\u{1B}[57406u", char("7")),
    TerminalSample("kitty", "keypad Up (flags 31)", "\u{1B}[57419u", key(.up)),
    TerminalSample("kitty", "left Shift alone (flags 31)", "\u{1B}[57441;2u"),
    TerminalSample("kitty", "Caps Lock (flags 31)", "\u{1B}[57358u"),
    TerminalSample("kitty", "Super+s", "\u{1B}[115;9u", char("s", .super)),
    TerminalSample("kitty", "é", "\u{1B}[233u", char("é")),
    TerminalSample("kitty", "flags reply", "\u{1B}[?1u", .keyboardEnhancementFlags(1)),
    TerminalSample("kitty", "flags reply, none", "\u{1B}[?0u", .keyboardEnhancementFlags(0)),
    TerminalSample("kitty", "device attributes", "\u{1B}[?62;c", .deviceAttributes),
    TerminalSample(
        "kitty", "background, 2 hex digits", "\u{1B}]11;rgb:ff/80/00\u{1B}\\",
        .backgroundColor(red: 0xFFFF, green: 0x8080, blue: 0)),

    // VS Code's integrated terminal (xterm.js).
    TerminalSample("xterm.js", "Up", "\u{1B}[A", key(.up)),
    TerminalSample("xterm.js", "Up, application cursor mode", "\u{1B}OA", key(.up)),
    TerminalSample("xterm.js", "Home", "\u{1B}[H", key(.home)),
    TerminalSample("xterm.js", "End", "\u{1B}[F", key(.end)),
    TerminalSample("xterm.js", "Ctrl+Left", "\u{1B}[1;5D", key(.left, .control)),
    TerminalSample("xterm.js", "Alt+Left", "\u{1B}[1;3D", key(.left, .alt)),
    TerminalSample("xterm.js", "Ctrl+Backspace", "\u{08}", key(.backspace)),
    TerminalSample("xterm.js", "Alt+Backspace", "\u{1B}\u{7F}", key(.backspace, .alt)),
    TerminalSample("xterm.js", "Alt+b (macOS option as meta)", "\u{1B}b", char("b", .alt)),
    TerminalSample("xterm.js", "Delete", "\u{1B}[3~", key(.delete)),
    TerminalSample("xterm.js", "F1", "\u{1B}OP", key(.function(1))),
    TerminalSample("xterm.js", "F12", "\u{1B}[24~", key(.function(12))),
    TerminalSample("xterm.js", "Shift+Tab", "\u{1B}[Z", key(.tab, .shift)),
    TerminalSample("xterm.js", "Ctrl+Shift+Page Up", "\u{1B}[5;6~", key(.pageUp, [.control, .shift])),
    TerminalSample("xterm.js", "wheel down", "\u{1B}[<65;40;12M", .mouse(MouseEvent(.scrollDown, column: 39, row: 11))),
    TerminalSample(
        "xterm.js", "background", "\u{1B}]11;rgb:1f1f/1f1f/1f1f\u{1B}\\",
        .backgroundColor(red: 0x1F1F, green: 0x1F1F, blue: 0x1F1F)),
    TerminalSample("xterm.js", "device attributes", "\u{1B}[?1;2c", .deviceAttributes),

    // GNOME Terminal (VTE).
    TerminalSample("VTE", "Up", "\u{1B}[A", key(.up)),
    TerminalSample("VTE", "Home, application cursor mode", "\u{1B}OH", key(.home)),
    TerminalSample("VTE", "End, application cursor mode", "\u{1B}OF", key(.end)),
    TerminalSample("VTE", "keypad Enter, application keypad", "\u{1B}OM", key(.enter)),
    TerminalSample("VTE", "Ctrl+Up", "\u{1B}[1;5A", key(.up, .control)),
    TerminalSample("VTE", "Ctrl+F1", "\u{1B}[1;5P", key(.function(1), .control)),
    TerminalSample("VTE", "Alt+Shift+Down", "\u{1B}[1;4B", key(.down, [.shift, .alt])),
    TerminalSample("VTE", "Page Down", "\u{1B}[6~", key(.pageDown)),
    TerminalSample("VTE", "Ctrl+Backspace", "\u{08}", key(.backspace)),
    TerminalSample("VTE", "Alt+x", "\u{1B}x", char("x", .alt)),
    TerminalSample("VTE", "device attributes", "\u{1B}[?65;1;9c", .deviceAttributes),
    TerminalSample(
        "VTE", "background, BEL", "\u{1B}]11;rgb:2e2e/3434/3636\u{07}",
        .backgroundColor(red: 0x2E2E, green: 0x3434, blue: 0x3636)),
    TerminalSample(
        "VTE", "typed text", "Grüße 你好 😀", char("G"), char("r"), char("ü"), char("ß"), char("e"), char(" "), char("你"),
        char("好"), char(" "), char("😀")),
]

@Suite struct TerminalInputDecoderTests {
    @Test(arguments: terminalSamples)
    func decodesWhatTheTerminalSends(_ sample: TerminalSample) {
        var decoder = TerminalInputDecoder()
        #expect(decoder.feed(sample.bytes) == sample.expected)
        #expect(!decoder.hasPendingEscape)
    }

    @Test(arguments: terminalSamples)
    func decodesTheSameWhereverTheReadIsSplit(_ sample: TerminalSample) {
        for split in 1..<sample.bytes.count {
            var decoder = TerminalInputDecoder()
            let output = decoder.feed(sample.bytes[..<split]) + decoder.feed(sample.bytes[split...])
            #expect(output == sample.expected, "split at \(split)")
        }
    }

    @Test func decodesTheSameWhenFedOneByteAtATime() {
        let all = terminalSamples.flatMap(\.bytes)
        var decoder = TerminalInputDecoder()
        var output: [TerminalInput] = []
        for byte in all { output += decoder.feed([byte]) }
        #expect(output == terminalSamples.flatMap(\.expected))
    }

    @Test func printableTextIncludingWideAndCombiningGraphemes() {
        #expect(decode(Array("a".utf8)) == [char("a")])
        #expect(decode(Array("中文".utf8)) == [char("中"), char("文")])
        #expect(decode(Array("👩‍💻🇩🇪".utf8)) == [char("👩‍💻"), char("🇩🇪")])
        #expect(decode(Array("e\u{301}x".utf8)) == [char("e\u{301}"), char("x")])
    }

    @Test func aCharacterSplitAcrossReadsWaitsForItsLastByte() {
        var decoder = TerminalInputDecoder()
        let bytes = Array("😀".utf8)
        #expect(decoder.feed(bytes[..<2]).isEmpty)
        #expect(!decoder.hasPendingEscape)
        #expect(decoder.feed(bytes[2...]) == [char("😀")])
    }

    @Test func aGraphemeSplitBetweenScalarsKeepsItsText() {
        let bytes = Array("e\u{301}".utf8)
        var decoder = TerminalInputDecoder()
        let output = decoder.feed(bytes[..<1]) + decoder.feed(bytes[1...])
        let text = output.compactMap { input -> String? in
            guard case .key(let event) = input, case .character(let character) = event.key else { return nil }
            return String(character)
        }.joined()
        #expect(text == "e\u{301}")
    }

    @Test func invalidUTF8BecomesReplacementCharacters() {
        #expect(decode([0x61, 0xFF, 0x62]) == [char("a"), char("\u{FFFD}"), char("b")])
        // Overlong "/" and a surrogate.
        #expect(decode([0xC0, 0xAF]) == [char("\u{FFFD}"), char("\u{FFFD}")])
        #expect(decode([0xED, 0xA0, 0x80, 0x41]) == [char("\u{FFFD}"), char("\u{FFFD}"), char("\u{FFFD}"), char("A")])
        // A lead byte cut short by a control byte.
        #expect(decode([0xE4, 0xB8, 0x0D]) == [char("\u{FFFD}"), key(.enter)])
    }

    @Test func aLoneEscWaitsThenBecomesEscOnFlush() {
        var decoder = TerminalInputDecoder()
        #expect(decoder.feed([0x1B]).isEmpty)
        #expect(decoder.hasPendingEscape)
        #expect(decoder.flush() == [key(.escape)])
        #expect(!decoder.hasPendingEscape)
        #expect(decoder.flush().isEmpty)
        #expect(decoder.feed(Array("a".utf8)) == [char("a")])
    }

    @Test func escAndACharacterOnFlushIsAlt() {
        var decoder = TerminalInputDecoder()
        #expect(decoder.feed(Array("\u{1B}[".utf8)).isEmpty)
        #expect(decoder.flush() == [char("[", .alt)])
        #expect(decoder.feed(Array("\u{1B}O".utf8)).isEmpty)
        #expect(decoder.flush() == [char("O", .alt)])
        #expect(decoder.feed([0x1B, 0x1B]).isEmpty)
        #expect(decoder.flush() == [key(.escape, .alt)])
    }

    @Test func anUnfinishedSequenceIsDroppedOnFlush() {
        var decoder = TerminalInputDecoder()
        #expect(decoder.feed(Array("\u{1B}[1;5".utf8)).isEmpty)
        #expect(decoder.hasPendingEscape)
        #expect(decoder.flush().isEmpty)
        #expect(decoder.feed(Array("A".utf8)) == [char("A")])
        #expect(decoder.feed(Array("\u{1B}]11;rgb:ff".utf8)).isEmpty)
        #expect(decoder.flush().isEmpty)
        #expect(!decoder.hasPendingEscape)
    }

    @Test func malformedSequencesAreDroppedWithoutLosingWhatFollows() {
        #expect(decode(Array("\u{1B}[1;5Yx".utf8)) == [char("x")])
        #expect(decode(Array("\u{1B}[12\u{1B}[A".utf8)) == [key(.up)])
        #expect(decode(Array("\u{1B}[<0;0;5Mz".utf8)) == [char("z")])
        #expect(decode(Array("\u{1B}[99~q".utf8)) == [char("q")])
        #expect(decode(Array("\u{1B}]0;title\u{07}w".utf8)) == [char("w")])
        #expect(decode(Array("\u{1B}]11;rgb:zz/00/00\u{07}w".utf8)) == [char("w")])
        #expect(decode(Array("\u{1B}]11;rgb:ff\u{1B}[B".utf8)) == [key(.down)])
        #expect(decode(Array("\u{1B}P>|xterm(390)\u{1B}\\k".utf8)) == [char("k")])
        #expect(decode(Array("\u{1B}[201~v".utf8)) == [char("v")])
        // A cursor position report is not F3.
        #expect(decode(Array("\u{1B}[12;40R".utf8)).isEmpty)
    }

    @Test func hugeNumbersAreDroppedNotOverflowed() {
        #expect(decode(Array("\u{1B}[99999999999999999999Ab".utf8)) == [char("b")])
        #expect(decode(Array("\u{1B}[1;99999999999999999999Ab".utf8)) == [char("b")])
        #expect(decode(Array("\u{1B}[<0;99999999999999999999;1Mb".utf8)) == [char("b")])
        #expect(decode(Array("\u{1B}[9999999999999999999999u".utf8)).isEmpty)
        #expect(decode(Array("\u{1B}[97;300u".utf8)).isEmpty)
        #expect(decode(Array("\u{1B}[1114112u".utf8)).isEmpty)
        #expect(decode(Array("\u{1B}[?99999999999999999999ub".utf8)) == [char("b")])
    }

    @Test func aSequenceOver256BytesIsDroppedHoweverItArrives() {
        let digits = String(repeating: "1", count: 300)
        let longSequence = Array("\u{1B}[\(digits);5A".utf8)
        let longString = Array("\u{1B}]11;\(String(repeating: "x", count: 300))\u{07}".utf8)
        for sequence in [longSequence, longString] {
            let bytes = sequence + Array("ok".utf8)
            #expect(decode(bytes) == [char("o"), char("k")])
            for split in [1, 2, 100, 255, 256, 257, sequence.count - 1, sequence.count] {
                var decoder = TerminalInputDecoder()
                let output = decoder.feed(bytes[..<split]) + decoder.feed(bytes[split...])
                #expect(output == [char("o"), char("k")], "split at \(split)")
            }
        }
        // 256 bytes exactly is still decoded.
        let padded = Array("\u{1B}[\(String(repeating: "0", count: 250))1;5A".utf8)
        #expect(padded.count == 256)
        #expect(decode(padded) == [key(.up, .control)])
        #expect(decode(Array("\u{1B}[0".utf8) + padded.dropFirst(2)).isEmpty)
    }

    @Test func pasteIsDeliveredWholeWithLineEndingsAndControlsCleaned() {
        let bytes = Array("\u{1B}[200~line 1\r\nline 2\rline 3\n\ttab\u{07}\u{1B}[31mred\u{1B}[201~".utf8)
        #expect(decode(bytes) == [.paste("line 1\nline 2\nline 3\n\ttab[31mred")])
    }

    @Test func pasteWithEscInsideAndAFakeEndMarkerPrefix() {
        let bytes = Array("\u{1B}[200~a\u{1B}b\u{1B}[201x\u{1B}[20\u{1B}[201~z".utf8)
        #expect(decode(bytes) == [.paste("ab[201x[20"), char("z")])
    }

    @Test func pasteSplitAcrossManyReads() {
        let content = String(repeating: "Grüße, 世界! 👋\n", count: 500)
        let bytes = Array("\u{1B}[200~\(content)\u{1B}[201~\r".utf8)
        for chunk in [1, 3, 7, 4096] {
            var decoder = TerminalInputDecoder()
            var output: [TerminalInput] = []
            var start = 0
            while start < bytes.count {
                let end = min(bytes.count, start + chunk)
                output += decoder.feed(bytes[start..<end])
                // The driver flushes when a read leaves no pending escape and no bytes follow
                // soon; inside a paste that must not end or cut it.
                if !decoder.hasPendingEscape {
                    let flushed = decoder.flush()
                    #expect(flushed.isEmpty)
                }
                start = end
            }
            #expect(output == [.paste(content), key(.enter)], "chunks of \(chunk)")
        }
    }

    @Test func pasteIsBoundedTo1MiB() {
        let limit = TerminalInputDecoder.maximumPasteBytes
        #expect(limit == 1_048_576)
        var decoder = TerminalInputDecoder()
        var output = decoder.feed(Array("\u{1B}[200~".utf8))
        // "é" is two bytes; the limit falls after 1 MiB of them, then 1 MiB more arrives.
        let piece = Array(String(repeating: "é", count: 4096).utf8)
        for _ in 0..<(2 * limit / piece.count + 1) { output += decoder.feed(piece) }
        output += decoder.feed([0x61] + piece + Array("\u{1B}[201~x".utf8))
        #expect(output.count == 2)
        guard case .paste(let text) = output.first else {
            Issue.record("no paste in \(output.prefix(1))")
            return
        }
        #expect(text.utf8.count == limit)
        #expect(text.allSatisfy { $0 == "é" })
        #expect(output.last == char("x"))
    }

    @Test func pasteCutInsideACharacterDropsThePartialCharacter() {
        let limit = TerminalInputDecoder.maximumPasteBytes
        var decoder = TerminalInputDecoder()
        let bytes = Array("\u{1B}[200~a".utf8) + Array(String(repeating: "é", count: limit / 2).utf8)
        var output = decoder.feed(bytes)
        output += decoder.feed(Array("\u{1B}[201~".utf8))
        guard case .paste(let text) = output.first else {
            Issue.record("no paste")
            return
        }
        #expect(text.utf8.count == limit - 1)
        #expect(text.last == "é")
    }

    @Test func pasteDoesNotEndOnAFlush() {
        var decoder = TerminalInputDecoder()
        #expect(decoder.feed(Array("\u{1B}[200~abc\u{1B}[20".utf8)).isEmpty)
        #expect(!decoder.hasPendingEscape)
        #expect(decoder.flush().isEmpty)
        #expect(decoder.feed(Array("1~".utf8)) == [.paste("abc")])
    }

    @Test func backgroundColourWithOneAndThreeDigitChannels() {
        #expect(
            decode(Array("\u{1B}]11;rgb:f/0/8\u{07}".utf8)) == [.backgroundColor(red: 0xFFFF, green: 0, blue: 0x8888)])
        #expect(
            decode(Array("\u{1B}]11;rgb:fff/000/800\u{07}".utf8)) == [
                .backgroundColor(red: 0xFFFF, green: 0, blue: 0x8008)
            ])
        #expect(decode(Array("\u{1B}]11;rgb:fffff/0/0\u{07}".utf8)).isEmpty)
    }

    @Test func escBeforeAnotherEscapeSequenceWhenNotAlt() {
        #expect(decode(Array("\u{1B}\u{1B}x".utf8)) == [key(.escape), char("x", .alt)])
        var decoder = TerminalInputDecoder()
        #expect(decoder.feed(Array("\u{1B}\u{1B}[".utf8)).isEmpty)
        #expect(decoder.flush() == [key(.escape), char("[", .alt)])
    }

    @Test func altWithANonASCIICharacter() {
        #expect(decode(Array("\u{1B}ö".utf8)) == [char("ö", .alt)])
    }
}
