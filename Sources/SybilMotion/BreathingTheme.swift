/// The breathing scene's colours. A theme follows light or dark appearance through
/// ``forAppearance(_:)``; a new theme is one more static factory.
public struct BreathingTheme: Sendable, Hashable {
    /// Light or dark system appearance.
    public enum Appearance: Sendable, Hashable {
        /// Light appearance.
        case light
        /// Dark appearance.
        case dark
    }

    /// The sky at the top of the scene.
    public var skyTop: RGBAColor
    /// The sky at the horizon.
    public var skyBottom: RGBAColor
    /// The water just under the horizon.
    public var waterTop: RGBAColor
    /// The water at the bottom of the scene.
    public var waterBottom: RGBAColor
    /// The horizon line.
    public var horizon: RGBAColor
    /// The ripple lines under the water.
    public var ripple: RGBAColor
    /// The guidance text's copy shown over the sky (dark on a bright sky).
    public var textOverSky: RGBAColor
    /// The guidance text's copy shown over the water (light on dark water).
    public var textOverWater: RGBAColor

    /// Creates a theme from its colours.
    public init(
        skyTop: RGBAColor, skyBottom: RGBAColor, waterTop: RGBAColor, waterBottom: RGBAColor, horizon: RGBAColor,
        ripple: RGBAColor, textOverSky: RGBAColor, textOverWater: RGBAColor
    ) {
        self.skyTop = skyTop
        self.skyBottom = skyBottom
        self.waterTop = waterTop
        self.waterBottom = waterBottom
        self.horizon = horizon
        self.ripple = ripple
        self.textOverSky = textOverSky
        self.textOverWater = textOverWater
    }

    /// The theme for `appearance`.
    public static func forAppearance(_ appearance: Appearance) -> BreathingTheme {
        switch appearance {
        case .light: return .light
        case .dark: return .dark
        }
    }

    /// A pale morning sky over teal water.
    public static let light = BreathingTheme(
        skyTop: RGBAColor(hex: 0xCFE8F7), skyBottom: RGBAColor(hex: 0xF6F1E4), waterTop: RGBAColor(hex: 0x3F8FA6),
        waterBottom: RGBAColor(hex: 0x1B4A63), horizon: RGBAColor(hex: 0xFFFFFF), ripple: RGBAColor(hex: 0x8CC7D6),
        textOverSky: RGBAColor(hex: 0x1E2A35), textOverWater: RGBAColor(hex: 0xF4FAFC))

    /// A night sky over deep water.
    public static let dark = BreathingTheme(
        skyTop: RGBAColor(hex: 0x0B1426), skyBottom: RGBAColor(hex: 0x27375A), waterTop: RGBAColor(hex: 0x12344A),
        waterBottom: RGBAColor(hex: 0x050D18), horizon: RGBAColor(hex: 0x9FB8D8), ripple: RGBAColor(hex: 0x3D6C8C),
        textOverSky: RGBAColor(hex: 0xE9EEF6), textOverWater: RGBAColor(hex: 0xB9D7EA))
}
