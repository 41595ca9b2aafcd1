/// Turns the bytes a terminal sends into ``TerminalInput``: keys, pastes, mouse reports,
/// focus changes and replies to queries. Pure: no clock and no I/O inside.
///
/// Bytes arrive in reads of any size; ``feed(_:)`` decodes everything complete and keeps an
/// incomplete tail (an escape sequence split across reads, half a UTF-8 character, a paste
/// still arriving) for the next call. An Esc key and the start of an escape sequence look the
/// same until more bytes come, so when ``hasPendingEscape`` is true the driver waits about
/// 50 ms and then calls ``flush()``, which settles the tail as Esc, Alt+key or nothing.
///
/// What it understands:
/// - UTF-8 text (invalid bytes become U+FFFD), one ``Key/character(_:)`` per grapheme that
///   arrived in the same read;
/// - C0 controls: Ctrl+A…Ctrl+Z as the lower-case letter with ``KeyModifiers/control`` (0x0A is
///   Ctrl+J), CR is Enter, HT is Tab, DEL and BS are Backspace, NUL is Ctrl+Space;
/// - Esc before a key as Alt (`ESC CR` is Alt+Enter);
/// - CSI and SS3 cursor keys, Home, End, F1–F4; `CSI n ~` keys; xterm modifiers
///   (`CSI 1 ; 5 A` is Ctrl+Up); Shift+Tab `CSI Z`; the kitty keyboard protocol (`CSI code ;
///   modifiers u`, its keypad and F13–F24 codes, key releases ignored); xterm
///   modifyOtherKeys (`CSI 27 ; modifiers ; code ~`);
/// - bracketed paste (`CSI 200 ~` … `CSI 201 ~`), delivered whole as ``TerminalInput/paste(_:)``
///   with CR LF and CR turned into LF and other control characters except Tab removed. A
///   paste keeps at most ``maximumPasteBytes`` bytes (1 MiB); the rest up to the end marker
///   is read and discarded;
/// - SGR mouse reports, focus in and out, the OSC 11 background colour reply (BEL or ST
///   terminated, 1–4 hex digits a channel), the kitty flags reply `CSI ? n u` and the device
///   attributes reply `CSI ? … c`.
///
/// Anything else (unknown or malformed sequences, numbers above
/// ``ControlSequence/largestNumber``, other OSC, DCS or APC strings) is dropped without
/// losing the bytes after it. A sequence longer than ``maximumSequenceLength`` bytes is
/// dropped as a whole, however it is split across reads.
public struct TerminalInputDecoder: Sendable, Hashable {
    /// The longest escape sequence decoded; longer ones are dropped up to their end.
    public static let maximumSequenceLength = 256
    /// The most bytes of one paste delivered (1 MiB); the rest is discarded.
    public static let maximumPasteBytes = 1 << 20

    /// What a sequence being dropped for its length ends with.
    private enum Discard: Hashable {
        /// A CSI sequence: ends at its final byte.
        case controlSequence
        /// An OSC, DCS, APC, PM or SOS string: ends at BEL or ST.
        case string
    }

    /// The result of decoding at one position.
    private enum Step {
        /// `count` bytes were used and gave `inputs`.
        case consumed(Int, [TerminalInput])
        /// The bytes from here on may still become something; wait for more.
        case incomplete
    }

    private static let escape: UInt8 = 0x1B
    private static let pasteEnd: [UInt8] = Array("\u{1B}[201~".utf8)

    private var pending: [UInt8] = []
    private var paste: PasteBuffer?
    private var discarding: Discard?

    /// Creates a decoder with nothing pending.
    public init() {}

    /// Whether the bytes kept back begin with Esc and could still become an escape sequence.
    /// The driver then calls ``flush()`` when no more bytes arrive within about 50 ms.
    public var hasPendingEscape: Bool {
        paste == nil && pending.first == Self.escape
    }

    /// Decodes all complete input in what was kept back plus `bytes`, keeping any incomplete
    /// tail for the next call.
    public mutating func feed(_ bytes: some Collection<UInt8>) -> [TerminalInput] {
        pending.append(contentsOf: bytes)
        var output: [TerminalInput] = []
        var index = 0
        decoding: while index < pending.count {
            let step: Step
            if paste != nil {
                step = pasteStep(at: index, into: &output)
            } else if let discard = discarding {
                step = discardStep(discard, at: index)
            } else {
                step = inputStep(at: index)
            }
            switch step {
            case .consumed(let count, let inputs):
                index += count
                output += inputs
            case .incomplete:
                break decoding
            }
        }
        pending.removeFirst(index)
        return output
    }

    /// Settles what was kept back once no more bytes came: a lone Esc becomes the Esc key, Esc
    /// and one printable ASCII character (or a second Esc) become that key with Alt, and an
    /// unfinished escape sequence is dropped. A paste still arriving and half a UTF-8
    /// character are left alone.
    public mutating func flush() -> [TerminalInput] {
        guard paste == nil else { return [] }
        discarding = nil
        var output: [TerminalInput] = []
        while pending.first == Self.escape {
            if pending.count == 1 {
                output.append(.key(KeyEvent(.escape)))
                pending = []
            } else if pending[1] == Self.escape {
                if pending.count == 2 {
                    output.append(.key(KeyEvent(.escape, modifiers: .alt)))
                    pending = []
                } else {
                    output.append(.key(KeyEvent(.escape)))
                    pending.removeFirst()
                }
            } else if pending.count == 2, (0x20...0x7E).contains(pending[1]) {
                output.append(.key(KeyEvent(.character(Character(Unicode.Scalar(pending[1]))), modifiers: .alt)))
                pending = []
            } else {
                pending = []
            }
        }
        return output
    }

    // MARK: - Outside a paste

    private mutating func inputStep(at index: Int) -> Step {
        let byte = pending[index]
        if byte == Self.escape { return escapeStep(at: index) }
        if byte < 0x20 || byte == 0x7F { return .consumed(1, [.key(Self.controlKey(byte))]) }
        return textStep(at: index)
    }

    /// A run of UTF-8 text up to the next control byte, one key per grapheme.
    private func textStep(at index: Int) -> Step {
        var scalars = String.UnicodeScalarView()
        var end = index
        scanning: while end < pending.count {
            let byte = pending[end]
            if byte < 0x20 || byte == 0x7F { break }
            switch UTF8Step.decode(pending, at: end) {
            case .scalar(let scalar, let length):
                if !(0x80..<0xA0).contains(scalar.value) { scalars.append(scalar) }
                end += length
            case .invalid(let length):
                scalars.append("\u{FFFD}")
                end += length
            case .incomplete:
                break scanning
            }
        }
        guard end > index else { return .incomplete }
        return .consumed(end - index, String(scalars).map { .key(KeyEvent(.character($0))) })
    }

    /// The key a C0 control byte or DEL stands for.
    private static func controlKey(_ byte: UInt8) -> KeyEvent {
        switch byte {
        case 0x00: KeyEvent(.character(" "), modifiers: .control)
        case 0x08, 0x7F: KeyEvent(.backspace)
        case 0x09: KeyEvent(.tab)
        case 0x0D: KeyEvent(.enter)
        case 0x1B: KeyEvent(.escape)
        case 0x01...0x1A: KeyEvent(.character(Character(Unicode.Scalar(byte + 0x60))), modifiers: .control)
        default: KeyEvent(.character(Character(Unicode.Scalar(byte + 0x40))), modifiers: .control)
        }
    }

    private mutating func escapeStep(at index: Int) -> Step {
        guard index + 1 < pending.count else { return .incomplete }
        let next = pending[index + 1]
        switch next {
        case UInt8(ascii: "["):
            return controlSequenceStep(at: index)
        case UInt8(ascii: "O"):
            guard index + 2 < pending.count else { return .incomplete }
            let final = pending[index + 2]
            guard (0x40...0x7E).contains(final) else {
                return .consumed(2, [.key(KeyEvent(.character("O"), modifiers: .alt))])
            }
            return .consumed(3, Self.singleShiftKey(final).map { [.key($0)] } ?? [])
        case UInt8(ascii: "]"), UInt8(ascii: "P"), UInt8(ascii: "_"), UInt8(ascii: "^"), UInt8(ascii: "X"):
            return stringStep(at: index)
        case Self.escape:
            guard index + 2 < pending.count else { return .incomplete }
            let third = pending[index + 2]
            guard third == UInt8(ascii: "[") || third == UInt8(ascii: "O") else {
                return .consumed(1, [.key(KeyEvent(.escape))])
            }
            // Some terminals send Alt with a cursor key as ESC before the sequence.
            switch escapeStep(at: index + 1) {
            case .incomplete: return .incomplete
            case .consumed(let count, let inputs): return .consumed(count + 1, inputs.map(Self.addingAlt))
            }
        case 0x00..<0x20, 0x7F:
            var key = Self.controlKey(next)
            key.modifiers.insert(.alt)
            return .consumed(2, [.key(key)])
        default:
            switch UTF8Step.decode(pending, at: index + 1) {
            case .incomplete:
                return .incomplete
            case .invalid:
                return .consumed(1, [.key(KeyEvent(.escape))])
            case .scalar(let scalar, let length):
                if (0x80..<0xA0).contains(scalar.value) { return .consumed(1 + length, []) }
                return .consumed(1 + length, [.key(KeyEvent(.character(Character(scalar)), modifiers: .alt))])
            }
        }
    }

    private static func addingAlt(_ input: TerminalInput) -> TerminalInput {
        guard case .key(var event) = input else { return input }
        event.modifiers.insert(.alt)
        return .key(event)
    }

    /// `ESC O final`: cursor keys, Home, End, F1–F4 and the application keypad.
    private static func singleShiftKey(_ final: UInt8) -> KeyEvent? {
        if let key = ControlSequence.letterKeys[final] { return KeyEvent(key) }
        switch final {
        case UInt8(ascii: "M"): return KeyEvent(.enter)
        case UInt8(ascii: "X"): return KeyEvent(.character("="))
        case UInt8(ascii: "j")...UInt8(ascii: "y"):
            let keypad: [Character] = ["*", "+", ",", "-", ".", "/", "0", "1", "2", "3", "4", "5", "6", "7", "8", "9"]
            return KeyEvent(.character(keypad[Int(final - UInt8(ascii: "j"))]))
        default: return nil
        }
    }

    /// `ESC [ parameters final`.
    private mutating func controlSequenceStep(at index: Int) -> Step {
        var end = index + 2
        while end < pending.count {
            let byte = pending[end]
            if (0x20...0x3F).contains(byte) {
                end += 1
                continue
            }
            guard (0x40...0x7E).contains(byte) else {
                // Malformed: drop what came before the stray byte and decode on from it.
                return .consumed(end - index, [])
            }
            let length = end - index + 1
            guard length <= Self.maximumSequenceLength else { return .consumed(length, []) }
            let sequence = ControlSequence(parameters: pending[(index + 2)..<end], final: byte)
            if sequence.isValid, sequence.marker == nil, byte == UInt8(ascii: "~"), sequence.fields == [[200]] {
                paste = PasteBuffer(limit: Self.maximumPasteBytes)
                return .consumed(length, [])
            }
            return .consumed(length, sequence.input().map { [$0] } ?? [])
        }
        if pending.count - index >= Self.maximumSequenceLength {
            discarding = .controlSequence
            return .consumed(pending.count - index, [])
        }
        return .incomplete
    }

    /// `ESC ] … BEL`, `ESC ] … ESC \` and the other string sequences (DCS, APC, PM, SOS).
    private mutating func stringStep(at index: Int) -> Step {
        var end = index + 2
        while end < pending.count {
            let byte = pending[end]
            var length = 0
            if byte == 0x07 {
                length = end - index + 1
            } else if byte == Self.escape {
                guard end + 1 < pending.count else { break }
                // An Esc that does not start ST ends a malformed string; decode on from it.
                guard pending[end + 1] == UInt8(ascii: "\\") else { return .consumed(end - index, []) }
                length = end - index + 2
            } else {
                end += 1
                continue
            }
            guard length <= Self.maximumSequenceLength, pending[index + 1] == UInt8(ascii: "]") else {
                return .consumed(length, [])
            }
            return .consumed(length, Self.operatingSystemCommand(pending[(index + 2)..<end]).map { [$0] } ?? [])
        }
        let kept = pending.last == Self.escape ? pending.count - 1 : pending.count
        if kept - index >= Self.maximumSequenceLength {
            discarding = .string
            return .consumed(kept - index, [])
        }
        return .incomplete
    }

    /// The OSC 11 reply `11;rgb:R/G/B`, each channel 1–4 hex digits scaled to 16 bits.
    private static func operatingSystemCommand(_ body: ArraySlice<UInt8>) -> TerminalInput? {
        let text = String(decoding: body, as: UTF8.self)
        let prefix = "11;rgb:"
        guard text.hasPrefix(prefix) else { return nil }
        let channels = text.dropFirst(prefix.count).split(separator: "/", omittingEmptySubsequences: false)
        guard channels.count == 3 else { return nil }
        var values: [UInt16] = []
        for channel in channels {
            guard (1...4).contains(channel.count), channel.allSatisfy(\.isHexDigit),
                let value = UInt32(channel, radix: 16)
            else { return nil }
            let largest = (UInt32(1) << (4 * UInt32(channel.count))) - 1
            values.append(UInt16((value * 0xFFFF + largest / 2) / largest))
        }
        return .backgroundColor(red: values[0], green: values[1], blue: values[2])
    }

    /// Skips the rest of a sequence dropped for its length.
    private mutating func discardStep(_ discard: Discard, at index: Int) -> Step {
        var end = index
        while end < pending.count {
            let byte = pending[end]
            switch discard {
            case .controlSequence:
                if (0x20...0x3F).contains(byte) {
                    end += 1
                    continue
                }
                if (0x40...0x7E).contains(byte) { end += 1 }
            case .string:
                if byte == Self.escape {
                    guard end + 1 < pending.count else { return end > index ? .consumed(end - index, []) : .incomplete }
                    if pending[end + 1] == UInt8(ascii: "\\") { end += 2 }
                } else if byte == 0x07 {
                    end += 1
                } else {
                    end += 1
                    continue
                }
            }
            discarding = nil
            return .consumed(end - index, [])
        }
        return end > index ? .consumed(end - index, []) : .incomplete
    }

    // MARK: - Inside a paste

    /// Collects paste bytes up to the end marker; an end marker split across reads is kept back.
    private mutating func pasteStep(at index: Int, into output: inout [TerminalInput]) -> Step {
        var end = index
        while end < pending.count {
            if pending[end] == Self.escape {
                var matched = 0
                while matched < Self.pasteEnd.count, end + matched < pending.count,
                    pending[end + matched] == Self.pasteEnd[matched]
                {
                    matched += 1
                }
                if matched == Self.pasteEnd.count {
                    paste?.append(pending[index..<end])
                    output.append(.paste(paste?.text() ?? ""))
                    paste = nil
                    return .consumed(end + matched - index, [])
                }
                if end + matched == pending.count {
                    paste?.append(pending[index..<end])
                    return end > index ? .consumed(end - index, []) : .incomplete
                }
            }
            end += 1
        }
        paste?.append(pending[index..<end])
        return .consumed(end - index, [])
    }
}
