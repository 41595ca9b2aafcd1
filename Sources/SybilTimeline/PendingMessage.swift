/// A message the user sent from this phone that history has not confirmed yet: the local
/// echo of an outbox entry. It is confirmed only when a row carries its operation id.
public struct PendingMessage: Sendable, Hashable {
    /// The submission's operation id (the outbox entry's identity).
    public var operationId: String
    /// What the user wrote.
    public var text: String
    /// When it was written, in milliseconds since the epoch (for display only, never matching).
    public var createdAt: Int64

    /// Creates a pending message.
    public init(operationId: String, text: String, createdAt: Int64) {
        self.operationId = operationId
        self.text = text
        self.createdAt = createdAt
    }
}
