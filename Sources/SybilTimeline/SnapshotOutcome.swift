/// What applying a snapshot, an overlay or a page did to a ``WorkspaceTimeline``.
public struct SnapshotOutcome: Sendable, Hashable {
    /// Whether anything visible changed (the revision advanced).
    public var changed: Bool
    /// Whether the display epoch advanced: scroll positions of the old window do not apply.
    public var displayEpochAdvanced: Bool
    /// Operation ids of pending messages that history or the overlay now carries: the outbox
    /// copy may complete them.
    public var confirmedOperations: [String]

    /// Creates an outcome.
    public init(changed: Bool, displayEpochAdvanced: Bool = false, confirmedOperations: [String] = []) {
        self.changed = changed
        self.displayEpochAdvanced = displayEpochAdvanced
        self.confirmedOperations = confirmedOperations
    }

    /// Nothing happened.
    public static let unchanged = SnapshotOutcome(changed: false)
}
