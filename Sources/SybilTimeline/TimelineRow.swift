import SybilWire

/// One row of the merged timeline a host shows: a confirmed (canonical) row, a live row of
/// the running turn, or a message still being sent from this phone.
public struct TimelineRow: Sendable, Hashable, Identifiable {
    /// Where the row comes from.
    public enum State: Sendable, Hashable {
        /// Settled history.
        case confirmed
        /// The running turn's live overlay.
        case live
        /// Sent from this phone; neither history nor the overlay carries it yet.
        case sending
    }

    /// The stable display key: the same string while a message goes from sending to live to
    /// confirmed, because all three share its typed identity (see ``confirmationIdentity(of:)``).
    /// Derived from ``identity`` when asked for, so building rows never formats strings.
    public var id: String { identity.description }
    /// The typed identity the row is matched by.
    public var identity: TimelineRowIdentity
    /// Row type.
    public var type: TimelineRowType
    /// Text.
    public var text: String
    /// Milliseconds since the epoch.
    public var timestamp: Int64
    /// Where the row comes from.
    public var state: State
    /// The run that produced the row, when known.
    public var runId: String?
    /// The submission that created the row, for user rows.
    public var operationId: String?
    /// The subagent thread the row opens or belongs to.
    public var subagentThreadId: String?

    /// Creates a row.
    public init(
        identity: TimelineRowIdentity, type: TimelineRowType, text: String, timestamp: Int64, state: State,
        runId: String? = nil, operationId: String? = nil, subagentThreadId: String? = nil
    ) {
        self.identity = identity
        self.type = type
        self.text = text
        self.timestamp = timestamp
        self.state = state
        self.runId = runId
        self.operationId = operationId
        self.subagentThreadId = subagentThreadId
    }

    /// The identity through which a block confirms (or is) a live row: a user row with an
    /// operation id is `operation:<id>`; another row of a known run is `run:<run>/row:<id>`;
    /// anything else `row:<id>`. For live blocks this is their splice key; a canonical block
    /// completes exactly the live row that shares it. Text and timestamps never take part.
    public static func confirmationIdentity(of block: TimelineBlock) -> TimelineRowIdentity {
        if block.type == .user, let operationId = block.operationId { return .operation(operationId) }
        if let runId = block.runId { return .runRow(runId: runId, rowId: block.id) }
        return .row(block.id)
    }

    /// A row made from a block.
    public init(block: TimelineBlock, identity: TimelineRowIdentity) {
        self.init(
            identity: identity, type: block.type, text: block.text, timestamp: block.timestamp,
            state: block.origin == .live ? .live : .confirmed, runId: block.runId,
            operationId: block.operationId, subagentThreadId: block.subagentThreadId)
    }

    /// A row for a message still being sent.
    public init(pending message: PendingMessage) {
        let identity = TimelineRowIdentity.operation(message.operationId)
        self.init(
            identity: identity, type: .user, text: message.text, timestamp: message.createdAt, state: .sending,
            operationId: message.operationId)
    }
}
