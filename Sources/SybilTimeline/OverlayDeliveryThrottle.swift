/// Paces live-overlay updates on their way to the UI (SPEC §4.4): at most 6 per second, or 2
/// per second while the composer or a preview is open; while the user drags, updates are held
/// and only the newest held-back one is kept. Pure: the caller passes the time and asks again
/// at ``nextDeliveryTime``.
public struct OverlayDeliveryThrottle<Update: Sendable, Instant: InstantProtocol>: Sendable
where Instant.Duration == Duration {
    /// Deliveries per second allowed normally.
    public static var normalRate: Int { 6 }
    /// Deliveries per second allowed while the composer or a preview is open.
    public static var composerOpenRate: Int { 2 }

    /// Whether the composer or a preview is open (the slower rate applies).
    public var isComposerOrPreviewOpen = false
    /// Whether the user is dragging the list (nothing is delivered).
    public private(set) var isDragging = false
    /// The newest update not yet delivered.
    public private(set) var held: Update?
    private var lastDelivery: Instant?

    /// A throttle that has delivered nothing yet.
    public init() {}

    /// The shortest time between two deliveries in the current mode.
    public var minimumInterval: Duration {
        .seconds(1) / (isComposerOrPreviewOpen ? Self.composerOpenRate : Self.normalRate)
    }

    /// Offers an update; returns it when it may be delivered now, else holds it (replacing any
    /// older held update) and returns `nil`.
    public mutating func offer(_ update: Update, at now: Instant) -> Update? {
        held = update
        return deliverIfDue(at: now)
    }

    /// Delivers the held update when its time has come.
    public mutating func deliverIfDue(at now: Instant) -> Update? {
        guard let update = held, !isDragging else { return nil }
        if let lastDelivery, lastDelivery.duration(to: now) < minimumInterval { return nil }
        held = nil
        lastDelivery = now
        return update
    }

    /// When a held update may be delivered (`nil` when nothing waits or a drag holds it).
    public var nextDeliveryTime: Instant? {
        guard held != nil, !isDragging else { return nil }
        return lastDelivery?.advanced(by: minimumInterval)
    }

    /// A drag began or ended; at the end the newest held update may be delivered.
    public mutating func setDragging(_ dragging: Bool, at now: Instant) -> Update? {
        isDragging = dragging
        return dragging ? nil : deliverIfDue(at: now)
    }
}
