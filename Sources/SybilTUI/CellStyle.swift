/// How a cell is drawn: its colours and attributes.
public struct CellStyle: Sendable, Hashable {
    /// The text colour.
    public var foreground: TerminalColor
    /// The background colour.
    public var background: TerminalColor
    /// Bold, dim, italic and the rest.
    public var attributes: CellAttributes

    /// Creates a style.
    public init(
        foreground: TerminalColor = .default, background: TerminalColor = .default, attributes: CellAttributes = []
    ) {
        self.foreground = foreground
        self.background = background
        self.attributes = attributes
    }

    /// The terminal's defaults with no attributes.
    public static let plain = CellStyle()

    /// This style with `attributes` added.
    public func adding(_ attributes: CellAttributes) -> CellStyle {
        var copy = self
        copy.attributes.formUnion(attributes)
        return copy
    }

    /// This style on another background.
    public func on(_ background: TerminalColor) -> CellStyle {
        var copy = self
        copy.background = background
        return copy
    }
}
