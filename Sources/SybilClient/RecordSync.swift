import SybilStore
import SybilWire

/// The batch sync of local-first records (seed 004): uploads every unsynced record in batches
/// of at most 500, in save order, and marks a record synced only after the server's result for
/// it says `created` or `duplicate`. A rejected record stays unsynced with the server's reason
/// kept (the next sync offers it again: a rule the server relaxes later lets it through). A
/// synced record is never uploaded again.
///
/// The sync mark is the whole point: a crash after the server stored a batch and before the
/// marks were written leaves the records unsynced, so the next sync uploads them again, the
/// server answers `duplicate` (ids are idempotency keys), and they are marked then; the
/// server holds each record once. The marks of one batch are written in one transaction.
///
/// A sync in progress is single-flight: callers that ask while one runs wait for it and get
/// its report; no record is uploaded by two syncs at once.
public actor RecordSync {
    /// A point a sync passes, where a test can stop it as a crash would.
    public enum Step: Sendable, Hashable {
        /// The server answered a batch of `count` records; the marks are not written yet.
        case uploaded(count: Int)
        /// The marks of a batch of `count` records are written.
        case marked(count: Int)
        /// A caller joined the sync already running instead of starting another.
        case joined
    }

    /// What one sync did.
    public struct Report: Sendable, Hashable {
        /// Batches sent.
        public var batches = 0
        /// Records the server stored now.
        public var created = 0
        /// Records the server already held (a retried upload).
        public var duplicates = 0
        /// Records the server refused; they stay unsynced with the reason.
        public var rejected = 0

        /// Records sent.
        public var uploaded: Int { created + duplicates + rejected }
        /// Records marked synced.
        public var marked: Int { created + duplicates }

        /// An empty report.
        public init() {}
    }

    private let store: RecordStore
    private let api: any RecordsAPI
    private let now: @Sendable () -> Int64
    private let batchSize: Int
    private let checkpoint: @Sendable (Step) throws -> Void
    private var running: Task<Result<Report, RecordSyncError>, Never>?

    /// A sync of `store` to `api`; `now` stamps the marks (milliseconds since 1970);
    /// `batchSize` is 1…500; `checkpoint` runs after each step, and an error it throws stops the
    /// sync there, as a crash would (tests).
    public init(
        store: RecordStore, api: any RecordsAPI, now: @escaping @Sendable () -> Int64,
        batchSize: Int = RecordBatch.maxRecords, checkpoint: @escaping @Sendable (Step) throws -> Void = { _ in }
    ) {
        precondition((1...RecordBatch.maxRecords).contains(batchSize), "a batch holds 1…\(RecordBatch.maxRecords)")
        self.store = store
        self.api = api
        self.now = now
        self.batchSize = batchSize
        self.checkpoint = checkpoint
    }

    /// Whether a sync is running.
    public var isSyncing: Bool { running != nil }

    /// Uploads every unsynced record and marks what the server confirmed; joins the sync in
    /// progress if there is one. Throws when a call or the store fails: the batches before it
    /// stay marked, the rest stay unsynced for the next sync.
    public func sync() async throws(RecordSyncError) -> Report {
        let task: Task<Result<Report, RecordSyncError>, Never>
        if let running {
            task = running
            // Reported only; a join cannot be stopped.
            try? checkpoint(.joined)
        } else {
            task = Task { await self.run() }
            running = task
        }
        let result = await task.value
        if running == task { running = nil }
        return try result.get()
    }

    private func run() async -> Result<Report, RecordSyncError> {
        var report = Report()
        var after: Int64 = 0
        do throws(RecordSyncError) {
            while true {
                let batch = try await storage { try await store.unsynced(after: after, limit: batchSize) }
                guard let last = batch.last else { return .success(report) }
                let records = batch.map(\.record)
                let results = try await api.upload(records)
                try step(.uploaded(count: records.count))
                _ = try await storage { try await store.apply(results, at: now()) }
                try step(.marked(count: records.count))
                report.batches += 1
                for result in results {
                    switch result.status {
                    case .created: report.created += 1
                    case .duplicate: report.duplicates += 1
                    case .rejected: report.rejected += 1
                    }
                }
                after = last.sequence
            }
        } catch {
            return .failure(error)
        }
    }

    private func step(_ step: Step) throws(RecordSyncError) {
        do {
            try checkpoint(step)
        } catch {
            throw .interrupted("\(error)")
        }
    }

    private func storage<T>(_ work: () async throws -> T) async throws(RecordSyncError) -> T {
        do {
            return try await work()
        } catch {
            throw .storage("\(error)")
        }
    }
}
