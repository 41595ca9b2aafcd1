/// The guidance line's path through the horizon, and the masks of its two copies.
///
/// The text's centre moves from `travel` below the water level (lungs empty) to `travel`
/// above it (lungs full). The path has three stretches: in the water, crossing (the text
/// overlaps the band the horizon can reach, level ± amplitude), and in the sky. Crossing
/// covers `h + 2A` points in ``crossingShare`` of the breath with ``crossingEasing``
/// (linear: no slow-in at the seam of the two copies); the calm stretches cover ``margin``
/// points each in the rest, eased in and out. So the text crosses fast and rests slowly.
public struct TextCrossing: Sendable, Hashable {
    /// Where the text is.
    public enum Region: String, Sendable, Hashable {
        /// Wholly under the horizon band.
        case water
        /// Overlapping the band the horizon can reach.
        case crossing
        /// Wholly above the band.
        case sky
    }

    /// The text's size in points.
    public let textWidth: Double, textHeight: Double
    /// The horizon's amplitude A in points.
    public let amplitude: Double
    /// Points travelled in each calm stretch.
    public let margin: Double
    /// The fraction of the breath spent crossing.
    public let crossingShare: Double
    /// The curve while crossing.
    public let crossingEasing: CubicBezierEasing
    /// The curve in the water and in the sky.
    public let calmEasing: CubicBezierEasing

    /// A path for text of the given size.
    public init(
        textWidth: Double, textHeight: Double, amplitude: Double, margin: Double, crossingShare: Double = 0.2,
        crossingEasing: CubicBezierEasing = .linear, calmEasing: CubicBezierEasing = .easeInOut
    ) {
        precondition(crossingShare > 0 && crossingShare < 1 && margin >= 0, "text crossing shape")
        self.textWidth = textWidth
        self.textHeight = textHeight
        self.amplitude = amplitude
        self.margin = margin
        self.crossingShare = crossingShare
        self.crossingEasing = crossingEasing
        self.calmEasing = calmEasing
    }

    /// Half the height of the crossing stretch: the text's half height plus the amplitude.
    var reach: Double { textHeight / 2 + amplitude }

    /// The stretch the text is in at `fullness` (0…1) and the curve moving it there.
    public func region(fullness: Double) -> (region: Region, easing: CubicBezierEasing) {
        let calmShare = (1 - crossingShare) / 2
        if fullness < calmShare { return (.water, calmEasing) }
        if fullness <= calmShare + crossingShare { return (.crossing, crossingEasing) }
        return (.sky, calmEasing)
    }

    /// The text centre's height above the water level at `fullness` (negative: below).
    public func rise(fullness: Double) -> Double {
        let f = min(max(fullness, 0), 1)
        let calmShare = (1 - crossingShare) / 2
        let (region, easing) = region(fullness: f)
        switch region {
        case .water:
            return -(reach + margin) + margin * easing.value(at: f / calmShare)
        case .crossing:
            return -reach + 2 * reach * easing.value(at: (f - calmShare) / crossingShare)
        case .sky:
            return reach + margin * easing.value(at: (f - calmShare - crossingShare) / calmShare)
        }
    }

    /// The text's frame in scene coordinates, centred at `centerX`, for a water level
    /// `level` (y of the still horizon).
    public func frame(fullness: Double, level: Double, centerX: Double) -> MotionRect {
        let centerY = level - rise(fullness: fullness)
        return MotionRect(
            x: centerX - textWidth / 2, y: centerY - textHeight / 2, width: textWidth, height: textHeight)
    }

    /// The two copies' masks in the TEXT'S OWN coordinates (origin at its frame's top-left):
    /// the sky copy shows above `horizonY` (a scene y), the water copy below. Together they
    /// cover the text's bounds exactly; one is empty when the text is wholly on one side.
    public static func masks(textFrame: MotionRect, horizonY: Double) -> (sky: MotionRect, water: MotionRect) {
        let split = min(max(horizonY, textFrame.y), textFrame.maxY)
        let skyInScene = MotionRect(x: textFrame.x, y: textFrame.y, width: textFrame.width, height: split - textFrame.y)
        let waterInScene = MotionRect(x: textFrame.x, y: split, width: textFrame.width, height: textFrame.maxY - split)
        return (
            skyInScene.converted(intoCoordinatesOf: textFrame), waterInScene.converted(intoCoordinatesOf: textFrame)
        )
    }
}
