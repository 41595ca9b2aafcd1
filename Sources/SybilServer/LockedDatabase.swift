import SybilCore
import SybilStore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One SQLite connection shared by a store's actor and short reads on other threads: the
/// actor reaches it with ``withDatabase(_:)`` on its own queue, and a read may also run on the
/// calling thread with ``withDatabaseIfIdle(instructions:_:)`` (the server's event-loop thread
/// answering a request at once), without a task and without the switches to the actor's queue
/// and back.
///
/// A read at once never waits: while ``withDatabase(_:)`` holds the connection or waits for it
/// (a write and its fsync may take long), or another read at once runs, it answers `nil` and
/// the caller takes the actor's way. Its statements get a budget of SQLite instructions, so a
/// read over many rows is cut short (it throws): the calling thread spends a bounded time
/// however large the tables grow, and so does an actor method waiting for it to end. Both
/// take turns through one lock, so a read at once sees every write an actor method finished.
final class LockedDatabase: @unchecked Sendable {
    // @unchecked: `database` is used only by the holder of the turn `turns` hands out.
    private let database: SQLiteDatabase
    /// Who has the connection; held only for a moment.
    private let turns = Locked(Turns())
    /// Orders the callers of ``withDatabase(_:)`` among themselves.
    private let writers = Locked(())

    private struct Turns {
        /// A ``withDatabase(_:)`` call holds the connection or waits for it: no read starts.
        var claimed = false
        /// A read at once is running.
        var reading = false
    }

    /// The connection, used only through this from now on.
    init(_ database: SQLiteDatabase) {
        self.database = database
    }

    /// Runs `body` with the connection: claims it (no read at once starts from then on), waits
    /// for a read at once already running to end (it is bounded), runs `body`, and frees it.
    func withDatabase<T: Sendable>(_ body: (SQLiteDatabase) throws -> T) throws -> T {
        try writers.withLock { _ in
            while !turns.withLock({ state in
                state.claimed = true
                return !state.reading
            }) {
                sched_yield()
            }
            defer { turns.withLock { $0.claimed = false } }
            return try body(database)
        }
    }

    /// Runs `body` with the connection when nothing else has it, its statements stopped after
    /// about `instructions` of SQLite's instructions in all
    /// (``SQLiteDatabase/withInstructionBudget(_:_:)``, which throws); `nil` at once when the
    /// connection is claimed or another read runs.
    func withDatabaseIfIdle<T: Sendable>(instructions: Int, _ body: (SQLiteDatabase) throws -> T) throws -> T? {
        let started = turns.withLock { state in
            guard !state.claimed, !state.reading else { return false }
            state.reading = true
            return true
        }
        guard started else { return nil }
        defer { turns.withLock { $0.reading = false } }
        return try database.withInstructionBudget(instructions) { try body(database) }
    }
}
