import Foundation

/// The breathing scene's state, driven by an injected frame clock (``advance(frame:)``):
/// sky and water split by the horizon `y = level + A·sin(ω·timestamp + k·x)` with A = 5 pt,
/// three ripple layers under the water calming over time, the water level following the
/// breath, and the guidance text rising through the horizon as two masked copies.
///
/// State (the breath, the ripples' calming) advances by each frame's duration; the sine
/// phases follow the frame's timestamp, so a dropped frame does not shift the waves.
/// Coordinates are points with y downwards; the scene is `width` × `height`.
public struct BreathingScene: Sendable {
    /// The scene's shape and motion constants.
    public struct Configuration: Sendable, Hashable {
        /// The scene's size in points.
        public var width: Double, height: Double
        /// The horizon's amplitude A (the seed's 5 pt).
        public var amplitude: Double = 5
        /// The horizon's angular frequency ω in radians per second.
        public var angularFrequency: Double = 1.2
        /// The wave number k in radians per point (one wave per 160 pt).
        public var waveNumber: Double = 2 * Double.pi / 160
        /// The still water level at rest, as a fraction of the height from the top.
        public var restingLevel: Double = 0.7
        /// How far the water rises at the top of a breath, as a fraction of the height.
        public var levelSwing: Double = 0.2
        /// The breath's rhythm.
        public var cycle: BreathingCycle = .standard
        /// Points between the water level and the first ripple layer, and between layers.
        public var rippleSpacing: Double = 8
        /// The guidance text's size in points.
        public var textWidth: Double = 44, textHeight: Double = 8

        /// A configuration for a scene of the given size with the defaults above.
        public init(width: Double, height: Double) {
            self.width = width
            self.height = height
        }
    }

    /// The constants.
    public let configuration: Configuration
    /// The colours.
    public var theme: BreathingTheme
    /// The three ripple layers (1.5, 2.3, 3.1 rad/s, 120° apart).
    public let ripples: [RippleLayer]
    /// The guidance text's path.
    public let text: TextCrossing
    /// State time: the sum of the frame durations so far, in seconds.
    public private(set) var elapsed: Double = 0
    /// The last frame's timestamp: the sine phases' time.
    public private(set) var timestamp: Double = 0

    /// A scene at rest (elapsed 0) with `theme`.
    public init(configuration: Configuration, theme: BreathingTheme) {
        self.configuration = configuration
        self.theme = theme
        ripples = RippleLayer.standard(spacing: configuration.rippleSpacing)
        text = TextCrossing(
            textWidth: configuration.textWidth, textHeight: configuration.textHeight,
            amplitude: configuration.amplitude, margin: configuration.textHeight)
    }

    /// Moves to `frame`: state by its duration, sine phase to its timestamp.
    public mutating func advance(frame: FrameTick) {
        elapsed += frame.duration
        timestamp = frame.timestamp
    }

    /// The breath's phase now.
    public var phase: BreathingCycle.Phase { configuration.cycle.phase(at: elapsed).phase }

    /// How full the lungs are now (0…1).
    public var fullness: Double { configuration.cycle.fullness(at: elapsed) }

    /// The still water level now: the rest level raised by the breath.
    public var waterLevel: Double {
        configuration.height * (configuration.restingLevel - configuration.levelSwing * fullness)
    }

    /// The horizon's y at `x`: `level + A·sin(ω·timestamp + k·x)`.
    public func horizonY(atX x: Double) -> Double {
        waterLevel
            + configuration.amplitude
            * sin(configuration.angularFrequency * timestamp + configuration.waveNumber * x)
    }

    /// The y of ripple layer `index` at `x`.
    public func rippleY(layer index: Int, atX x: Double) -> Double {
        let layer = ripples[index]
        return waterLevel + layer.depth
            + layer.offset(x: x, timestamp: timestamp, elapsed: elapsed, waveNumber: configuration.waveNumber)
    }

    /// The guidance text for the phase.
    public var guidance: String {
        switch phase {
        case .inhale: return "breathe in"
        case .hold: return "hold"
        case .exhale: return "breathe out"
        }
    }

    /// The guidance text's frame and masks this frame.
    public var textCrossing: TextCrossingFrame {
        let frame = text.frame(fullness: fullness, level: waterLevel, centerX: configuration.width / 2)
        let masks = TextCrossing.masks(textFrame: frame, horizonY: horizonY(atX: frame.midX))
        let (region, easing) = text.region(fullness: fullness)
        return TextCrossingFrame(
            frame: frame, skyMask: masks.sky, waterMask: masks.water, region: region, easing: easing,
            skyColor: theme.textOverSky, waterColor: theme.textOverWater)
    }
}

/// What to draw of the guidance text in one frame.
public struct TextCrossingFrame: Sendable, Hashable {
    /// The text's frame in scene coordinates.
    public var frame: MotionRect
    /// The sky copy's mask, in the text's own coordinates.
    public var skyMask: MotionRect
    /// The water copy's mask, in the text's own coordinates.
    public var waterMask: MotionRect
    /// Where the text is on its path.
    public var region: TextCrossing.Region
    /// The curve moving it there.
    public var easing: CubicBezierEasing
    /// The sky copy's colour.
    public var skyColor: RGBAColor
    /// The water copy's colour.
    public var waterColor: RGBAColor
}
