import Foundation

/// One of the ripple lines under the water: `offset = a(t)·sin(ω·timestamp + k·x + φ)` about
/// its depth, where the amplitude calms over the exercise:
/// `a(t) = floor + (initial − floor)·e^(−t/τ)` with t the state time (sum of frame
/// durations). It starts at `initial`, never increases, and approaches but never passes
/// `floor`.
public struct RippleLayer: Sendable, Hashable {
    /// The angular frequency ω in radians per second.
    public let frequency: Double
    /// The phase φ in radians.
    public let phase: Double
    /// Points below the water level.
    public let depth: Double
    /// The amplitude at t = 0, in points.
    public let initialAmplitude: Double
    /// The amplitude it calms towards, in points.
    public let floorAmplitude: Double
    /// The calming time constant τ in seconds.
    public let calmingTime: Double

    /// A ripple layer.
    public init(
        frequency: Double, phase: Double, depth: Double, initialAmplitude: Double, floorAmplitude: Double,
        calmingTime: Double
    ) {
        precondition(calmingTime > 0 && floorAmplitude >= 0 && initialAmplitude >= floorAmplitude, "ripple calming")
        self.frequency = frequency
        self.phase = phase
        self.depth = depth
        self.initialAmplitude = initialAmplitude
        self.floorAmplitude = floorAmplitude
        self.calmingTime = calmingTime
    }

    /// The seed's three layers: 1.5, 2.3 and 3.1 rad/s, phases 0, 2π/3 and 4π/3 (120° apart),
    /// each deeper than the last; 3 pt calming to 0.75 pt with τ = 20 s.
    public static func standard(spacing: Double) -> [RippleLayer] {
        [1.5, 2.3, 3.1].enumerated().map { index, frequency in
            RippleLayer(
                frequency: frequency, phase: Double(index) * 2 * Double.pi / 3, depth: spacing * Double(index + 1),
                initialAmplitude: 3, floorAmplitude: 0.75, calmingTime: 20)
        }
    }

    /// The amplitude after `elapsed` seconds of state time.
    public func amplitude(elapsed: Double) -> Double {
        floorAmplitude + (initialAmplitude - floorAmplitude) * exp(-max(elapsed, 0) / calmingTime)
    }

    /// The offset from the layer's depth at `x`.
    public func offset(x: Double, timestamp: Double, elapsed: Double, waveNumber: Double) -> Double {
        amplitude(elapsed: elapsed) * sin(frequency * timestamp + waveNumber * x + phase)
    }
}
