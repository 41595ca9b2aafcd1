import SybilWire

/// The records surface a sync talks to (docs/api/records.md). ``RecordsHTTPClient`` is the
/// real one; tests give a fake that fails loudly on calls it does not expect.
public protocol RecordsAPI: Sendable {
    /// `POST records/batch`: uploads 1…500 records and returns one result per record, in the
    /// order sent, each naming the record it answers (checked by the implementation).
    func upload(_ records: [Record]) async throws(RecordSyncError) -> [RecordResult]
    /// `GET records?after=&limit=`: the server's records stored after `after`.
    func page(after: RecordCursor?, limit: Int) async throws(RecordSyncError) -> RecordPage
}
