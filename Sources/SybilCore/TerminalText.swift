/// Text from a peer made safe to write to a terminal: the one place where what a server, a
/// room member or a model sent meets the person's screen. Every C0 control but tab and line
/// feed, DEL and every C1 control (U+0080–U+009F) becomes U+FFFD, and CR LF becomes a line
/// feed, so an escape sequence in a message (ESC ] 52 setting the clipboard, ESC [ 2J clearing
/// the screen, ESC ] 0 retitling the window, an 8-bit CSI) is shown, never obeyed, and a lone
/// carriage return cannot send the cursor back over what was shown.
///
/// The explicit bidi formatting characters of UAX #9 become U+FFFD too: the embeddings and
/// overrides LRE, RLE, PDF, LRO, RLO (U+202A–U+202E) and the isolates LRI, RLI, FSI, PDI
/// (U+2066–U+2069). A terminal that implements bidi (VTE, Konsole, mlterm) would otherwise
/// show a peer's `invoice<RLO>fdp.exe` as `invoiceexe.pdf`, or reverse the rest of a line
/// after an unclosed override, Sybil's own words included (Trojan Source, CVE-2021-42574).
/// Hebrew and Arabic need none of them to read right, and are kept as they are, as are the
/// implicit marks LRM, RLM and ALM (U+200E, U+200F, U+061C): each acts as one invisible letter
/// of its direction, which changes no more than a real Hebrew or Arabic letter there would, and
/// opens no scope that runs on past it.
public enum TerminalText {
    /// Whether `scalar` is replaced.
    @inline(__always)
    public static func isUnsafe(_ scalar: Unicode.Scalar) -> Bool {
        let value = scalar.value
        if value < 0xA0 { return (value < 0x20 && value != 0x09 && value != 0x0A) || value >= 0x7F }
        return (0x202A...0x202E).contains(value) || (0x2066...0x2069).contains(value)
    }

    /// `text` with its unsafe scalars replaced (see the type); `text` itself when it holds none.
    public static func safe(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isUnsafe) else { return text }
        var result = ""
        result.unicodeScalars.reserveCapacity(text.unicodeScalars.count)
        var scalars = text.unicodeScalars.makeIterator()
        var pending = scalars.next()
        while let scalar = pending {
            pending = scalars.next()
            if scalar == "\r", pending == "\n" {
                continue  // CR LF: the LF that follows is kept
            }
            result.unicodeScalars.append(isUnsafe(scalar) ? "\u{FFFD}" : scalar)
        }
        return result
    }

    /// `text` made safe and on one line: line feeds and tabs become spaces.
    public static func oneLine(_ text: String) -> String {
        String(String.UnicodeScalarView(safe(text).unicodeScalars.map { $0 == "\n" || $0 == "\t" ? " " : $0 }))
    }
}
