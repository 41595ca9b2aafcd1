import SybilWire

/// A record as the device keeps it: the record, the order it was saved in, and its sync
/// state: synced (the server confirmed it holds it) or not, and the reason the server last
/// rejected it.
public struct StoredRecord: Sendable, Hashable {
    /// The local save order (1, 2, …); uploads go in this order.
    public var sequence: Int64
    /// The record.
    public var record: Record
    /// When the server's confirmation was marked, milliseconds since 1970; `nil` while unsynced.
    public var syncedAt: Int64?
    /// Why the server last rejected it (kept until it is accepted); `nil` when it never was.
    public var rejection: RecordResult.Rejection?

    /// Creates a stored record.
    public init(sequence: Int64, record: Record, syncedAt: Int64? = nil, rejection: RecordResult.Rejection? = nil) {
        self.sequence = sequence
        self.record = record
        self.syncedAt = syncedAt
        self.rejection = rejection
    }

    /// Whether the server confirmed it holds the record.
    public var isSynced: Bool { syncedAt != nil }
}
