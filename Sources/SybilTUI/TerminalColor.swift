/// A colour a terminal cell can take: the terminal's own default, one of the 256 indexed
/// colours, or a 24-bit colour.
public enum TerminalColor: Sendable, Hashable {
    /// The terminal's default foreground or background.
    case `default`
    /// An indexed colour (0–15 the terminal's palette, 16–255 the xterm cube and greys).
    case indexed(UInt8)
    /// A 24-bit colour.
    case rgb(UInt8, UInt8, UInt8)
}
