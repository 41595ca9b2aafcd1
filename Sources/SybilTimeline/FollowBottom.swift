/// Following the bottom of a growing chat (SPEC §4.4): each frame moves towards the bottom at
/// the remaining distance divided by 1.5 s, clamped to 80…2,200 pt/s; with Reduce Motion the
/// list jumps instead.
public enum FollowBottom {
    /// The time the remaining distance would take at the unclamped speed.
    public static var catchUpTime: Double { 1.5 }
    /// Slowest speed, points per second.
    public static var minimumSpeed: Double { 80 }
    /// Fastest speed, points per second.
    public static var maximumSpeed: Double { 2_200 }

    /// Speed for `remaining` points to the bottom.
    public static func speed(remaining: Double) -> Double {
        min(max(remaining / catchUpTime, minimumSpeed), maximumSpeed)
    }

    /// How far to move in a frame of `frame` duration: never past the bottom; all of it with
    /// Reduce Motion.
    public static func step(remaining: Double, frame: Duration, reduceMotion: Bool) -> Double {
        guard remaining > 0 else { return 0 }
        if reduceMotion { return remaining }
        let seconds = Double(frame.components.seconds) + Double(frame.components.attoseconds) * 1e-18
        return min(remaining, speed(remaining: remaining) * seconds)
    }
}
