/// One display frame, shaped like `CADisplayLink`'s callback: when the frame is shown and
/// how long it lasts. The scene's state advances by ``duration``; its sine phases follow
/// ``timestamp``. Both are seconds.
public struct FrameTick: Sendable, Hashable {
    /// The longest step a frame may advance the state (a process resumed after a pause
    /// must not jump the breathing cycle).
    public static let maximumDuration = 0.25

    /// The frame's presentation time, in seconds on the frame clock.
    public let timestamp: Double
    /// The frame's length in seconds: non-finite or negative values become 0, longer
    /// values ``maximumDuration``.
    public let duration: Double

    /// A frame at `timestamp` lasting `duration`.
    public init(timestamp: Double, duration: Double) {
        self.timestamp = timestamp.isFinite ? timestamp : 0
        self.duration = duration.isFinite ? min(max(duration, 0), Self.maximumDuration) : 0
    }

    /// `count` frames at `framesPerSecond` (1 to 240), the first at timestamp 0: what
    /// `sybil breathe --frames` and the tests drive the scene with.
    public static func sequence(framesPerSecond: Int, count: Int) -> [FrameTick] {
        precondition((1...240).contains(framesPerSecond), "frame rate must be 1...240")
        let step = 1 / Double(framesPerSecond)
        return (0..<max(count, 0)).map { FrameTick(timestamp: Double($0) * step, duration: step) }
    }
}
