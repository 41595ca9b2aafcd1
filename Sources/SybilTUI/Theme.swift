/// The app's colours, chosen once from the terminal's background (light or dark) or turned
/// off under `NO_COLOR`. Every screen draws with these roles, never with literal colours.
public struct Theme: Sendable, Hashable {
    /// Whether the theme is for a light or a dark background, or has no colour.
    public enum Appearance: Sendable, Hashable {
        /// Dark text on a light background.
        case light
        /// Light text on a dark background.
        case dark
        /// No colour at all (`NO_COLOR`): attributes only.
        case monochrome
    }

    /// Which appearance this is.
    public var appearance: Appearance
    /// Body text.
    public var text: CellStyle
    /// Secondary text: timestamps, hints, statuses.
    public var secondary: CellStyle
    /// Titles and the focused element's accent.
    public var accent: CellStyle
    /// The user's own messages.
    public var user: CellStyle
    /// The assistant's and agent's messages.
    public var assistant: CellStyle
    /// Errors and failed messages.
    public var error: CellStyle
    /// Warnings: offline, waiting, queued.
    public var warning: CellStyle
    /// Success: sent, confirmed.
    public var success: CellStyle
    /// The selected row of a list.
    public var selection: CellStyle
    /// Borders and separators.
    public var border: CellStyle
    /// Code spans and blocks.
    public var code: CellStyle
    /// Links.
    public var link: CellStyle
    /// Matched words in search excerpts.
    public var highlight: CellStyle

    /// The theme for a dark background.
    public static let dark = Theme(
        appearance: .dark,
        text: .plain,
        secondary: CellStyle(foreground: .indexed(245)),
        accent: CellStyle(foreground: .indexed(75), attributes: .bold),
        user: CellStyle(foreground: .indexed(117)),
        assistant: .plain,
        error: CellStyle(foreground: .indexed(203)),
        warning: CellStyle(foreground: .indexed(179)),
        success: CellStyle(foreground: .indexed(114)),
        selection: CellStyle(foreground: .indexed(231), background: .indexed(24)),
        border: CellStyle(foreground: .indexed(240)),
        code: CellStyle(foreground: .indexed(223), background: .indexed(236)),
        link: CellStyle(foreground: .indexed(75), attributes: .underline),
        highlight: CellStyle(foreground: .indexed(16), background: .indexed(179), attributes: .bold))

    /// The theme for a light background.
    public static let light = Theme(
        appearance: .light,
        text: .plain,
        secondary: CellStyle(foreground: .indexed(242)),
        accent: CellStyle(foreground: .indexed(25), attributes: .bold),
        user: CellStyle(foreground: .indexed(24)),
        assistant: .plain,
        error: CellStyle(foreground: .indexed(160)),
        warning: CellStyle(foreground: .indexed(130)),
        success: CellStyle(foreground: .indexed(28)),
        selection: CellStyle(foreground: .indexed(16), background: .indexed(153)),
        border: CellStyle(foreground: .indexed(250)),
        code: CellStyle(foreground: .indexed(88), background: .indexed(254)),
        link: CellStyle(foreground: .indexed(25), attributes: .underline),
        highlight: CellStyle(foreground: .indexed(16), background: .indexed(222), attributes: .bold))

    /// No colour: emphasis by attributes alone.
    public static let monochrome = Theme(
        appearance: .monochrome,
        text: .plain,
        secondary: CellStyle(attributes: .dim),
        accent: CellStyle(attributes: .bold),
        user: CellStyle(attributes: .bold),
        assistant: .plain,
        error: CellStyle(attributes: .bold),
        warning: CellStyle(attributes: .bold),
        success: .plain,
        selection: CellStyle(attributes: .inverse),
        border: CellStyle(attributes: .dim),
        code: CellStyle(attributes: .dim),
        link: CellStyle(attributes: .underline),
        highlight: CellStyle(attributes: [.bold, .underline]))

    /// The theme for a background colour reported by the terminal (OSC 11), channels 0–65535:
    /// light when its relative luminance is above one half.
    public static func forBackground(red: UInt16, green: UInt16, blue: UInt16) -> Theme {
        let luminance = 0.2126 * Double(red) + 0.7152 * Double(green) + 0.0722 * Double(blue)
        return luminance / 65535 > 0.5 ? .light : .dark
    }
}
