import Observation
import SybilCore
import SybilStore
import SybilWire

/// The records screen's view model (seed 004): logs moods, breathing and meditation sessions
/// (and the profile's display name) to the device first, so logging works with no server at
/// all, lists them newest first, counts what is not synced yet, and runs the batch sync with
/// its state and last error for the screen to show. `sybil records` drives it.
@MainActor
@Observable
public final class RecordsModel {
    /// Where the sync is.
    public enum SyncState: Sendable, Hashable {
        /// No sync has run since the model was made.
        case idle
        /// A sync is running.
        case syncing
        /// The last sync finished with this report.
        case finished(RecordSync.Report)
        /// The last sync failed; ``RecordsModel/lastError`` says why.
        case failed
    }

    /// Saved records as the list shows them, newest first (at most ``listLimit``).
    public private(set) var records: [RecordListItem] = []
    /// How many records are not synced yet.
    public private(set) var unsyncedCount = 0
    /// The profile in force (the newest `user` record).
    public private(set) var profile: Record?
    /// Where the sync is.
    public private(set) var syncState: SyncState = .idle
    /// The last failure (a save, a load or a sync), one sentence; cleared by the next success.
    public private(set) var lastError: String?
    /// How many records ``records`` holds at most.
    public var listLimit = 200

    @ObservationIgnored private let store: RecordStore
    @ObservationIgnored private let sync: RecordSync?
    @ObservationIgnored private let ids: any IDGenerator
    @ObservationIgnored private let now: @Sendable () -> Int64

    /// A model over `store`; `sync` is `nil` when there is no server (logging still works).
    /// `ids` names new records (UUIDs) and `now` stamps them (milliseconds since 1970).
    public init(store: RecordStore, sync: RecordSync?, ids: any IDGenerator, now: @escaping @Sendable () -> Int64) {
        self.store = store
        self.sync = sync
        self.ids = ids
        self.now = now
    }

    /// Reloads the list, the unsynced count and the profile from the store.
    public func reload() async {
        do {
            records = try await store.records(limit: listLimit).map(RecordListItem.init)
            unsyncedCount = try await store.unsyncedCount()
            profile = try await store.profile()
        } catch {
            lastError = "The saved records could not be read: \(error)"
        }
    }

    /// Logs a mood from 1 to 5 with an optional note.
    @discardableResult
    public func logMood(score: Int, note: String?) async throws(RecordsModelError) -> Record {
        try await log(.mood(score: score, note: note))
    }

    /// Logs a breathing session of `seconds` with `cycles` breathing cycles.
    @discardableResult
    public func logBreathing(seconds: Int, cycles: Int) async throws(RecordsModelError) -> Record {
        try await log(.breathing(durationSeconds: seconds, cycles: cycles))
    }

    /// Logs a meditation session of `seconds`.
    @discardableResult
    public func logMeditation(seconds: Int) async throws(RecordsModelError) -> Record {
        try await log(.meditation(durationSeconds: seconds))
    }

    /// Sets the profile's display name (a new `user` record that replaces the older ones).
    @discardableResult
    public func setDisplayName(_ name: String) async throws(RecordsModelError) -> Record {
        try await log(.user(displayName: name))
    }

    /// Checks and saves a new record, then reloads. The record is on disk when this returns;
    /// nothing waits for the network.
    private func log(_ payload: Record.Payload) async throws(RecordsModelError) -> Record {
        let record: Record
        do {
            record = try Record(id: ids.makeID(), createdAt: now(), payload: payload)
        } catch {
            lastError = "\(error)"
            throw .invalid(error)
        }
        do {
            try await store.save(record)
        } catch {
            lastError = "The record could not be saved: \(error)"
            throw .storage("\(error)")
        }
        lastError = nil
        await reload()
        return record
    }

    /// What ``lastError`` says when a sync is asked for and there is no server to sync with.
    public static let noServer = "There is no server to sync with here; the records stay on this device."

    /// Runs a sync (joining one in progress), then reloads. Without a server it sends nothing
    /// and says so in ``lastError`` (``noServer``). The outcome is in ``syncState`` and
    /// ``lastError``; it is also returned (`nil` without a server).
    @discardableResult
    public func syncNow() async -> Result<RecordSync.Report, RecordSyncError>? {
        guard let sync else {
            lastError = Self.noServer
            return nil
        }
        syncState = .syncing
        let result: Result<RecordSync.Report, RecordSyncError>
        do {
            result = .success(try await sync.sync())
        } catch {
            result = .failure(error)
        }
        switch result {
        case .success(let report):
            syncState = .finished(report)
            lastError = nil
        case .failure(let error):
            syncState = .failed
            lastError = error.description
        }
        await reload()
        return result
    }
}
