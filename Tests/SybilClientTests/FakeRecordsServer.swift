import SybilClient
import SybilWire

/// A records server in memory that follows the contract's rules (created, duplicate,
/// conflict), counts what it receives, and can hold an upload, fail the next one, or refuse
/// chosen ids. Pages are not expected: asking for one fails the test's call loudly.
actor FakeRecordsServer: RecordsAPI {
    private(set) var stored: [String: String] = [:]
    /// Upload calls and records received, also the ones answered as duplicates.
    private(set) var uploadCalls = 0
    private(set) var recordsReceived = 0
    private(set) var batchSizes: [Int] = []
    /// Ids refused as invalid.
    var refused: Set<String> = []
    /// Fails the upload call with this number (1-based) as a dropped connection would,
    /// after storing nothing.
    var failCall: Int?
    private var held: CheckedContinuation<Void, Never>?
    private var holdNext = false
    private let started: AsyncStream<Void>.Continuation
    /// Yields when an upload call arrives.
    nonisolated let uploadsStarted: AsyncStream<Void>

    init() {
        (uploadsStarted, started) = AsyncStream<Void>.makeStream()
    }

    func refuse(_ id: String) { refused.insert(id) }
    func allowAll() { refused.removeAll() }
    func fail(call: Int) { failCall = call }
    /// The next upload waits until ``release()``.
    func holdNextUpload() { holdNext = true }
    func release() {
        held?.resume()
        held = nil
        holdNext = false
    }

    func upload(_ records: [Record]) async throws(RecordSyncError) -> [RecordResult] {
        uploadCalls += 1
        started.yield()
        if holdNext {
            holdNext = false
            await withCheckedContinuation { held = $0 }
        }
        if failCall == uploadCalls { throw .transport("connection reset (fake)") }
        recordsReceived += records.count
        batchSizes.append(records.count)
        return records.map { record in
            if refused.contains(record.id) {
                return RecordResult(
                    id: record.id, status: .rejected,
                    error: .init(code: "invalid_record", message: "refused (fake)", param: "records[0]"))
            }
            if let body = stored[record.id] {
                return body == record.canonicalJSON
                    ? RecordResult(id: record.id, status: .duplicate)
                    : RecordResult(
                        id: record.id, status: .rejected, error: .init(code: "record_conflict", message: "taken"))
            }
            stored[record.id] = record.canonicalJSON
            return RecordResult(id: record.id, status: .created)
        }
    }

    func page(after: RecordCursor?, limit: Int) async throws(RecordSyncError) -> RecordPage {
        throw .malformedAnswer("the fake server serves no pages")
    }
}
