/// The cover over a chat's first display (SPEC §4.4): it hides the list until layout settles,
/// but drops after about 2 s even if layout never does; under it, a short history first loads
/// up to two older pages so the screen is not half empty.
public struct FirstDisplayCover<Instant: InstantProtocol>: Sendable where Instant.Duration == Duration {
    /// What the caller should do.
    public enum Action: Sendable, Hashable {
        /// Keep covering.
        case none
        /// Load one older page beneath the cover.
        case loadOlderPage
        /// Remove the cover.
        case reveal
    }

    /// The longest the cover stays.
    public static var maximumDuration: Duration { .seconds(2) }
    /// Older pages a short history may load beneath the cover.
    public static var maximumOlderPages: Int { 2 }

    /// When the cover appeared.
    public let shownAt: Instant
    /// Whether the cover is still up.
    public private(set) var isCovering = true
    /// Older pages requested so far.
    public private(set) var olderPagesRequested = 0
    private var isLoadingOlderPage = false

    /// A cover shown at `shownAt`.
    public init(shownAt: Instant) {
        self.shownAt = shownAt
    }

    /// Layout settled. `isShortHistory`: the rows do not fill the viewport.
    public mutating func layoutSettled(isShortHistory: Bool, hasOlderEntries: Bool, at now: Instant) -> Action {
        guard isCovering else { return .none }
        if let timeout = tick(at: now) { return timeout }
        if isLoadingOlderPage { return .none }
        if isShortHistory, hasOlderEntries, olderPagesRequested < Self.maximumOlderPages {
            olderPagesRequested += 1
            isLoadingOlderPage = true
            return .loadOlderPage
        }
        isCovering = false
        return .reveal
    }

    /// An older page requested beneath the cover arrived (or failed); layout will settle again.
    public mutating func olderPageFinished() {
        isLoadingOlderPage = false
    }

    /// Reveals when the maximum duration has passed; returns `.reveal` then, else `nil`.
    public mutating func tick(at now: Instant) -> Action? {
        guard isCovering, shownAt.duration(to: now) >= Self.maximumDuration else { return nil }
        isCovering = false
        return .reveal
    }

    /// When ``tick(at:)`` must run at the latest.
    public var deadline: Instant { shownAt.advanced(by: Self.maximumDuration) }
}
