import SybilStore
import SybilWire

/// One saved record as the records list shows it: the record, its save order, and whether it
/// is synced or why the server rejected it. View state that ``RecordsModel`` publishes, made
/// from the device's saved row.
public struct RecordListItem: Sendable, Hashable {
    /// The local save order (1, 2, …).
    public var sequence: Int64
    /// The record.
    public var record: Record
    /// When the server confirmed it holds the record, milliseconds since 1970; `nil` while
    /// unsynced.
    public var syncedAt: Int64?
    /// Why the server last rejected it; `nil` when it never was.
    public var rejection: RecordResult.Rejection?

    /// Creates a list item.
    public init(sequence: Int64, record: Record, syncedAt: Int64? = nil, rejection: RecordResult.Rejection? = nil) {
        self.sequence = sequence
        self.record = record
        self.syncedAt = syncedAt
        self.rejection = rejection
    }

    /// The item for a saved row.
    public init(_ row: StoredRecord) {
        self.init(sequence: row.sequence, record: row.record, syncedAt: row.syncedAt, rejection: row.rejection)
    }

    /// Whether the server confirmed it holds the record.
    public var isSynced: Bool { syncedAt != nil }
}
