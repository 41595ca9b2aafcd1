/// The breathing rhythm: inhale, hold, exhale, repeated. During the inhale the water rises
/// (eased in and out), during the hold it stays up, during the exhale it sinks back. The
/// default is inhale 4 s, hold 2 s, exhale 6 s: a 12 s cycle, five breaths a minute.
public struct BreathingCycle: Sendable, Hashable {
    /// Where in the cycle a moment falls.
    public enum Phase: String, Sendable, Hashable, CaseIterable {
        /// Breathing in: the water rises.
        case inhale
        /// Holding: the water stays up.
        case hold
        /// Breathing out: the water sinks.
        case exhale
    }

    /// Why durations were refused.
    public struct InvalidDurations: Error, Sendable, Hashable, CustomStringConvertible {
        /// The refused durations.
        public var inhale: Double, hold: Double, exhale: Double

        /// One sentence with the values and the rule.
        public var description: String {
            "Breathing durations inhale \(inhale) s, hold \(hold) s, exhale \(exhale) s are invalid; inhale and exhale must be over 0 and hold at least 0, all finite."
        }
    }

    /// Seconds breathing in.
    public let inhale: Double
    /// Seconds holding.
    public let hold: Double
    /// Seconds breathing out.
    public let exhale: Double

    /// A cycle with the given phase lengths.
    public init(inhale: Double, hold: Double, exhale: Double) throws(InvalidDurations) {
        guard inhale.isFinite, hold.isFinite, exhale.isFinite, inhale > 0, hold >= 0, exhale > 0 else {
            throw InvalidDurations(inhale: inhale, hold: hold, exhale: exhale)
        }
        self.inhale = inhale
        self.hold = hold
        self.exhale = exhale
    }

    /// Inhale 4 s, hold 2 s, exhale 6 s.
    public static let standard = try! BreathingCycle(inhale: 4, hold: 2, exhale: 6)

    /// The length of one breath.
    public var period: Double { inhale + hold + exhale }

    /// The phase at `time` seconds into the exercise, and the progress (0…1) through it.
    public func phase(at time: Double) -> (phase: Phase, progress: Double) {
        var t = time.truncatingRemainder(dividingBy: period)
        if t < 0 { t += period }
        if t < inhale { return (.inhale, t / inhale) }
        t -= inhale
        if t < hold { return (.hold, hold > 0 ? t / hold : 1) }
        t -= hold
        return (.exhale, min(t / exhale, 1))
    }

    /// How full the lungs are at `time`: 0 at rest, 1 at the top of the breath.
    public func fullness(at time: Double) -> Double {
        let (phase, progress) = phase(at: time)
        switch phase {
        case .inhale: return CubicBezierEasing.easeInOut.value(at: progress)
        case .hold: return 1
        case .exhale: return 1 - CubicBezierEasing.easeInOut.value(at: progress)
        }
    }
}
