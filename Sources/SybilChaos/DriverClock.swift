import Foundation

/// The wall clock the driver hands to the engine's stores and outboxes: the driver is a
/// process's edge like the `sybil` commands, so it runs on real time.
enum DriverClock {
    /// Milliseconds since 1970, now.
    static let milliseconds: @Sendable () -> Int64 = {
        Int64((Date().timeIntervalSince1970 * 1_000).rounded(.down))  // live default: the driver's wall clock
    }
}
