/// Text from a peer made safe to write to a terminal: the one place where what a server, a
/// room member or a model sent meets the person's screen. Every C0 control but tab and line
/// feed, DEL and every C1 control (U+0080–U+009F) becomes U+FFFD, and CR LF becomes a line
/// feed, so an escape sequence in a message (ESC ] 52 setting the clipboard, ESC [ 2J clearing
/// the screen, ESC ] 0 retitling the window, an 8-bit CSI) is shown, never obeyed, and a lone
/// carriage return cannot send the cursor back over what was shown.
public enum TerminalText {
    /// Whether `scalar` is replaced.
    @inline(__always)
    public static func isUnsafe(_ scalar: Unicode.Scalar) -> Bool {
        let value = scalar.value
        return (value < 0x20 && value != 0x09 && value != 0x0A) || (0x7F...0x9F).contains(value)
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
