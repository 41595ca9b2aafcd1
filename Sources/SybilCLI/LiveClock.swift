import Foundation

/// The wall clock the commands hand to the engine: they are the process's edge, and everything
/// below them takes time injected (tests pass a manual clock instead).
enum LiveClock {
    /// Milliseconds since 1970, now.
    static let milliseconds: @Sendable () -> Int64 = {
        Int64((Date().timeIntervalSince1970 * 1_000).rounded(.down))  // live default: the process's wall clock
    }
}
