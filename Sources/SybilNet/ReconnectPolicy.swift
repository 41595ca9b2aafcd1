import Foundation
import SybilCore

/// When to reconnect a dropped WebSocket (SPEC §6, issue "network"): exponential backoff with
/// jitter from the injected random source, reset once a connection has stayed up long enough,
/// and a replay hook so a room can resume from its last merged cursor. A pure state machine:
/// the owner reports what happened and waits for the delay it is given.
public struct ReconnectPolicy: Sendable, Hashable {
    /// The first delay.
    public var initialDelay: Duration
    /// The largest delay.
    public var maximumDelay: Duration
    /// Each failure multiplies the delay by this.
    public var multiplier: Double
    /// The largest random extra, as a fraction of the delay.
    public var jitter: Double
    /// A connection up this long counts as stable: the next drop starts from the first delay.
    public var stableAfter: Duration

    /// Failures since the last stable connection.
    public private(set) var attempts = 0

    /// Defaults: 1 s doubling to at most 60 s, up to +20 % jitter, stable after 30 s.
    public init(
        initialDelay: Duration = .seconds(1), maximumDelay: Duration = .seconds(60), multiplier: Double = 2,
        jitter: Double = 0.2, stableAfter: Duration = .seconds(30)
    ) {
        precondition(multiplier >= 1 && jitter >= 0, "backoff must not shrink")
        self.initialDelay = initialDelay
        self.maximumDelay = maximumDelay
        self.multiplier = multiplier
        self.jitter = jitter
        self.stableAfter = stableAfter
    }

    /// What the owner does after a drop.
    public struct Decision: Sendable, Hashable {
        /// Wait this long, then connect again.
        public var delay: Duration
        /// Replay from the last merged cursor once connected (always, so nothing is missed).
        public var replayFromCursor: Bool
    }

    /// The connection dropped (or a connect failed) after being up for `uptime` (`nil`: it never
    /// opened). Returns the wait before the next attempt.
    public mutating func connectionDropped(uptime: Duration?, random: some RandomSource) -> Decision {
        if let uptime, uptime >= stableAfter { attempts = 0 }
        let exponent = Double(attempts)
        attempts += 1
        let initial = Self.seconds(initialDelay)
        let base = min(initial * pow(multiplier, exponent), Self.seconds(maximumDelay))
        let delay = base * (1 + jitter * random.nextUnitInterval())
        return Decision(delay: .nanoseconds(Int64(delay * 1e9)), replayFromCursor: true)
    }

    /// A connection opened; it becomes stable after ``stableAfter`` (reported through the uptime
    /// of its eventual drop).
    public mutating func reset() {
        attempts = 0
    }

    private static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) * 1e-18
    }
}
