import SybilWire

/// The latest-window scheduler of one host (SPEC §4.2), as a pure state machine: one active
/// operation, at most one pending request for the current target, coalescing, and fences
/// that decide whether a finished load may still be applied.
///
/// The host drives it: it calls ``request(_:)`` when something makes the window stale, starts
/// the operation an ``Action/start(_:)`` names, and reports the end with
/// ``finish(_:current:)`` or ``fail(_:current:)``. Nothing here waits or performs I/O.
public struct LatestWindowScheduler: Sendable, Hashable {
    /// The timeline fences captured when a load starts.
    public struct TimelineFence: Sendable, Hashable {
        /// Which timeline the host shows.
        public var viewport: TimelineViewport
        /// The display epoch of that timeline.
        public var displayEpoch: UInt64

        /// Creates a fence.
        public init(viewport: TimelineViewport, displayEpoch: UInt64) {
            self.viewport = viewport
            self.displayEpoch = displayEpoch
        }
    }

    /// One load of the newest window.
    public struct Operation: Sendable, Hashable {
        /// Unique within this scheduler.
        public var id: UInt64
        /// The chat it loads.
        public var target: WorkspaceChatKey
        /// The target generation when it started.
        public var targetGeneration: UInt64
        /// The timeline fence when it started.
        public var fence: TimelineFence
    }

    /// What the host should do next.
    public enum Action: Sendable, Hashable {
        /// Nothing.
        case none
        /// Start this load.
        case start(Operation)
    }

    /// Whether a finished load's snapshot may be applied.
    public enum Verdict: Sendable, Hashable {
        /// Apply it.
        case apply
        /// Drop it, for this reason.
        case drop(DropReason)
    }

    /// Why a snapshot was dropped.
    public enum DropReason: Sendable, Hashable {
        /// The operation is not the active one (superseded, or unknown).
        case notActive
        /// The host now shows another chat.
        case targetChanged
        /// The target was set again (re-selected, or changed and back) since the load began.
        case generationChanged
        /// The host now shows another timeline (a thread change).
        case viewportChanged
        /// The display epoch moved since the load began.
        case epochChanged
    }

    /// The chat whose newest window is wanted.
    public private(set) var target: WorkspaceChatKey?
    /// Advances whenever the target is set, so that loads for an earlier selection are rejected.
    public private(set) var targetGeneration: UInt64 = 0
    /// The load in flight.
    public private(set) var active: Operation?
    /// A load was requested while another ran or while the host was parked.
    public private(set) var hasPendingRequest = false
    /// Whether the host is selected and active; a parked host starts nothing.
    public private(set) var isRunning = false
    private var lastOperationID: UInt64 = 0

    /// A scheduler with no target, parked.
    public init() {}

    /// Sets the chat to load. A new generation begins even for the same chat, so a load that
    /// started before a re-selection cannot apply; a pending request for the old target is
    /// dropped (the caller requests for the new one).
    public mutating func setTarget(_ newTarget: WorkspaceChatKey?) {
        if newTarget != target { hasPendingRequest = false }
        target = newTarget
        targetGeneration += 1
    }

    /// Asks for a load of the current target. Starts one when nothing runs and the host is
    /// active; otherwise records one pending request (many requests coalesce into it).
    public mutating func request(_ fence: TimelineFence) -> Action {
        guard target != nil else { return .none }
        hasPendingRequest = true
        return startIfPossible(fence)
    }

    /// Activates or parks the host. Activation starts a pending request.
    public mutating func setRunning(_ running: Bool, _ fence: TimelineFence) -> Action {
        isRunning = running
        return startIfPossible(fence)
    }

    /// A load finished with a snapshot: says whether to apply it, then what to start next.
    /// Only the active operation may apply, and only while its target, generation and
    /// timeline fence still hold.
    public mutating func finish(_ operation: Operation, current fence: TimelineFence) -> (Verdict, Action) {
        guard active?.id == operation.id else { return (.drop(.notActive), .none) }
        active = nil
        let verdict: Verdict
        if operation.target != target {
            verdict = .drop(.targetChanged)
        } else if operation.targetGeneration != targetGeneration {
            verdict = .drop(.generationChanged)
        } else if operation.fence.viewport != fence.viewport {
            verdict = .drop(.viewportChanged)
        } else if operation.fence.displayEpoch != fence.displayEpoch {
            verdict = .drop(.epochChanged)
        } else {
            verdict = .apply
        }
        return (verdict, startIfPossible(fence))
    }

    /// A load failed. A request made while it ran is still pending and starts now (a transient
    /// loss does not drop it); the visible rows are the host's to keep.
    public mutating func fail(_ operation: Operation, current fence: TimelineFence) -> Action {
        guard active?.id == operation.id else { return .none }
        active = nil
        return startIfPossible(fence)
    }

    private mutating func startIfPossible(_ fence: TimelineFence) -> Action {
        guard isRunning, active == nil, hasPendingRequest, let target else { return .none }
        hasPendingRequest = false
        lastOperationID += 1
        let operation = Operation(id: lastOperationID, target: target, targetGeneration: targetGeneration, fence: fence)
        active = operation
        return .start(operation)
    }
}
