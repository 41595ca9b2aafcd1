import Foundation

/// The wall clock a process's edge hands to the engine (the `sybil` commands, the kill -9
/// driver): everything below takes time injected, and tests pass a manual clock instead.
public enum WallClock {
    /// Milliseconds since 1970, now.
    public static let milliseconds: @Sendable () -> Int64 = {
        Int64((Date().timeIntervalSince1970 * 1_000).rounded(.down))  // live default: the process's wall clock
    }
}
