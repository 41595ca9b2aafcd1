/// A colour as red, green, blue and alpha components in 0…1 (sRGB); the components are set
/// only through the clamping initialisers, so ``bytes`` always fits.
public struct RGBAColor: Sendable, Hashable {
    /// Red, 0…1.
    public let red: Double
    /// Green, 0…1.
    public let green: Double
    /// Blue, 0…1.
    public let blue: Double
    /// Opacity, 0…1.
    public let alpha: Double

    /// A colour from components, each clamped to 0…1.
    public init(red: Double, green: Double, blue: Double, alpha: Double = 1) {
        func clamp(_ value: Double) -> Double { value.isFinite ? min(max(value, 0), 1) : 0 }
        self.red = clamp(red)
        self.green = clamp(green)
        self.blue = clamp(blue)
        self.alpha = clamp(alpha)
    }

    /// A colour from 8-bit `0xRRGGBB`.
    public init(hex: UInt32, alpha: Double = 1) {
        self.init(
            red: Double((hex >> 16) & 0xFF) / 255, green: Double((hex >> 8) & 0xFF) / 255,
            blue: Double(hex & 0xFF) / 255, alpha: alpha)
    }

    /// The colour `fraction` (0…1) of the way to `other`.
    public func mixed(with other: RGBAColor, fraction: Double) -> RGBAColor {
        let f = min(max(fraction.isFinite ? fraction : 0, 0), 1)
        return RGBAColor(
            red: red + (other.red - red) * f, green: green + (other.green - green) * f,
            blue: blue + (other.blue - blue) * f, alpha: alpha + (other.alpha - alpha) * f)
    }

    /// The 8-bit red, green and blue components.
    public var bytes: (red: UInt8, green: UInt8, blue: UInt8) {
        (UInt8((red * 255).rounded()), UInt8((green * 255).rounded()), UInt8((blue * 255).rounded()))
    }
}
