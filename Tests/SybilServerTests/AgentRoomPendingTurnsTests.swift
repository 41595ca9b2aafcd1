import Foundation
import SybilCore
import SybilStore
import SybilWire
import Testing

@testable import SybilServer

/// The Agent room's pending turns: a reply is stored together with the look for the next turn
/// (``AgentRoomStore/storeReplyFindingNext(of:text:createdAt:)``), and a database made before
/// the pending turns were indexed gains the index (`agent-3-pending-turns`) once, keeping every
/// turn it owed.
@Suite("Agent room store: pending turns and their index", .timeLimit(.minutes(1)))
struct AgentRoomPendingTurnsTests {
    private static let indexMigration = "agent-3-pending-turns"

    private static func directory() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("sybil-pending-\(UUID().uuidString)")
            .path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    @discardableResult
    private static func submit(_ store: AgentRoomStore, _ number: Int) async throws -> AgentRoomStore.Row {
        try await store.submit(
            AgentRoomSubmission(requestId: "req-\(number)", text: "Question \(number)", createdAt: Int64(number)),
            fingerprint: "f-\(number)", maxTotalBytes: 1
        ).row
    }

    private static func pending(_ store: AgentRoomStore) async throws -> AgentRoomStore.PendingTurn {
        try #require(try await store.nextPendingTurn())
    }

    // MARK: storeReplyFindingNext

    /// Fails if the reply is not stored (no assistant row, the turn still pending) or if the
    /// look finds a turn when none is left, e.g. the one just answered.
    @Test func theLastReplyIsStoredAndFindsNoNextTurn() async throws {
        let store = try AgentRoomStore(.inMemory)
        let user = try await Self.submit(store, 1)
        let turn = try await Self.pending(store)
        #expect(turn.user == user)

        let (reply, found) = try await store.storeReplyFindingNext(of: turn, text: "Answer 1", createdAt: 50)
        let next = try found.get()

        #expect(next == nil, "the only turn was just answered")
        #expect(reply.sequence > user.sequence)
        #expect(reply.message.role == .assistant)
        #expect(reply.message.visibility == .public)
        #expect(reply.message.text == "Answer 1")
        #expect(reply.message.createdAt == 50)
        let stored = try await store.messages(after: nil, before: nil, limit: 10).rows
        #expect(stored == [user, reply], "the reply is in the room as returned")
        #expect(try await store.pendingTurnCount() == 0)
        #expect(try await store.nextPendingTurn() == nil)
    }

    /// Fails if the look returns the turn just answered, a newer turn before an older one, or a
    /// turn that differs from what ``AgentRoomStore/nextPendingTurn()`` finds afterwards.
    @Test func aReplyFindsTheOldestTurnStillPending() async throws {
        let store = try AgentRoomStore(.inMemory)
        let first = try await Self.submit(store, 1)
        let second = try await Self.submit(store, 2)
        let third = try await Self.submit(store, 3)
        let turn = try await Self.pending(store)
        #expect(turn.user == first)

        let (reply, found) = try await store.storeReplyFindingNext(of: turn, text: "Answer 1", createdAt: 10)
        let next = try found.get()

        #expect(next?.user == second, "the oldest of the two turns left")
        #expect(next?.toolStored == false)
        #expect(next == (try await store.nextPendingTurn()), "the same turn a separate look finds")
        #expect(try await store.pendingTurnCount() == 2)
        let stored = try await store.messages(after: nil, before: nil, limit: 10).rows
        #expect(stored == [first, second, third, reply])

        // The next reply, for the second turn, finds the third; the last finds none.
        let secondAnswer = try await store.storeReplyFindingNext(
            of: try #require(next), text: "Answer 2", createdAt: 20)
        #expect(try secondAnswer.next.get()?.user == third)
        let thirdAnswer = try await store.storeReplyFindingNext(
            of: try #require(try secondAnswer.next.get()), text: "Answer 3", createdAt: 30)
        #expect(try thirdAnswer.next.get() == nil)
        #expect(try await store.pendingTurnCount() == 0)
    }

    /// Fails if a turn that already has its reply is returned again (here one older than the
    /// turn still pending, answered out of order), or if the next turn's stored tool step is
    /// not reported (its step would be stored twice).
    @Test func aTurnAlreadyAnsweredIsNeverFound() async throws {
        let store = try AgentRoomStore(.inMemory)
        let first = try await Self.submit(store, 1)
        let second = try await Self.submit(store, 2)
        let third = try await Self.submit(store, 3)
        let firstTurn = try await Self.pending(store)
        // The second turn is answered first, the third has its tool step stored.
        let secondTurn = AgentRoomStore.PendingTurn(user: second, toolStored: false)
        let early = try await store.storeReplyFindingNext(of: secondTurn, text: "Answer 2", createdAt: 10)
        #expect(try early.next.get()?.user == first, "the first turn is older and still pending")
        let thirdTurn = AgentRoomStore.PendingTurn(user: third, toolStored: false)
        _ = try await store.storeToolStep(of: thirdTurn, text: "$ look", createdAt: 11)

        let next = try await store.storeReplyFindingNext(of: firstTurn, text: "Answer 1", createdAt: 12).next.get()

        #expect(next?.user == third, "the second turn, answered already, is skipped")
        #expect(next?.toolStored == true)
        #expect(try await store.pendingTurnCount() == 1)
    }

    /// Fails if a look that fails after a stored reply is reported as "no turn pending" (the
    /// turn still owed would wait for the next message), or if the reply is not stored.
    @Test func aFailedLookAfterAReplyIsAFailureNotNoTurn() async throws {
        struct Busy: Error {}
        let failLookups = Locked(false)
        let store = try AgentRoomStore(.inMemory) { step in
            if step == .lookup, failLookups.withLock({ $0 }) { throw Busy() }
        }
        _ = try await Self.submit(store, 1)
        let second = try await Self.submit(store, 2)
        let turn = try await Self.pending(store)
        failLookups.withLock { $0 = true }

        let (reply, next) = try await store.storeReplyFindingNext(of: turn, text: "Answer 1", createdAt: 10)

        #expect(throws: Busy.self, "the failed look is reported") { try next.get() }
        #expect(reply.message.text == "Answer 1")
        #expect(try await store.pendingTurnCount() == 1, "the reply is stored; the second turn is still owed")
        failLookups.withLock { $0 = false }
        #expect(try await store.nextPendingTurn()?.user == second)
    }

    // MARK: The index migration

    /// Fails if opening a database that has only the migrations before `agent-3-pending-turns`
    /// does not create the partial index, does not record the migration, loses or reorders the
    /// turns it owed, or applies the migration again on the next open (a second
    /// `CREATE INDEX` of the same name throws, so the store would not open); also if the look
    /// for the next turn stops reading the index.
    @Test func aDatabaseWithoutTheIndexGainsItOnceAndKeepsItsPendingTurns() async throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/" + AgentRoomStore.file
        let earlier = Array(AgentRoomStore.migrations.prefix { $0.name != Self.indexMigration })
        #expect(earlier.map(\.name) == ["agent-1", "agent-2-turns"])
        let all = AgentRoomStore.migrations.map(\.name)
        #expect(all.prefix(3) == ["agent-1", "agent-2-turns", Self.indexMigration])

        // The older schema, with what the store of that time wrote: three user messages, the
        // first answered (tool step and reply), the second with its tool step only, the third
        // untouched.
        do {
            let old = try SQLiteDatabase.open(path: path, migrations: earlier)
            try old.execute(
                """
                INSERT INTO agent_messages (request_id, fingerprint, role, visibility, text, created_at)
                VALUES ('req-1', 'f-1', 'user', 'public', 'Question 1', 1);
                INSERT INTO agent_turns (user_sequence) VALUES (1);
                INSERT INTO agent_messages (request_id, fingerprint, role, visibility, text, created_at)
                VALUES ('req-2', 'f-2', 'user', 'public', 'Question 2', 2);
                INSERT INTO agent_turns (user_sequence) VALUES (2);
                INSERT INTO agent_messages (role, visibility, text, created_at)
                VALUES ('tool', 'internal', '$ one', 3);
                INSERT INTO agent_messages (role, visibility, text, created_at)
                VALUES ('assistant', 'public', 'Answer 1', 4);
                UPDATE agent_turns SET tool_sequence = 3, reply_sequence = 4 WHERE user_sequence = 1;
                INSERT INTO agent_messages (role, visibility, text, created_at)
                VALUES ('tool', 'internal', '$ two', 5);
                UPDATE agent_turns SET tool_sequence = 5 WHERE user_sequence = 2;
                INSERT INTO agent_messages (request_id, fingerprint, role, visibility, text, created_at)
                VALUES ('req-3', 'f-3', 'user', 'public', 'Question 3', 6);
                INSERT INTO agent_turns (user_sequence) VALUES (6);
                """)
            #expect(try Self.indexes(old).isEmpty, "the older schema has no index of its own")
            #expect(try Self.applied(old) == ["agent-1", "agent-2-turns"])
        }

        let store = try AgentRoomStore(.directory(directory))
        let inspect = try SQLiteDatabase(.file(path: path), busyTimeoutMilliseconds: 5_000)
        #expect(try Self.indexes(inspect) == ["agent_turns_pending"])
        let sql = try inspect.rows("SELECT sql FROM sqlite_master WHERE name = 'agent_turns_pending'").first?
            .text("sql")
        #expect(sql?.contains("ON agent_turns (user_sequence) WHERE reply_sequence IS NULL") == true)
        #expect(try Self.applied(inspect) == all)
        // The store's look for the next turn (its SQL, copied) reads the index, not the table.
        let plan = try inspect.rows(
            """
            EXPLAIN QUERY PLAN SELECT user_sequence, tool_sequence FROM agent_turns
            WHERE reply_sequence IS NULL ORDER BY user_sequence ASC LIMIT 1
            """
        ).map { try $0.text("detail") }
        #expect(plan.contains { $0.contains("USING INDEX agent_turns_pending") }, "plan: \(plan)")
        let appliedAt = try inspect.query(
            "SELECT applied_at FROM schema_migrations WHERE name = ?",
            [
                .text(Self.indexMigration)
            ])

        // The turns owed before the upgrade are still found, oldest first, with their progress.
        #expect(try await store.pendingTurnCount() == 2)
        let second = try #require(try await store.nextPendingTurn())
        #expect(second.user.sequence == 2)
        #expect(second.user.message.text == "Question 2")
        #expect(second.toolStored)
        let third = try await store.storeReplyFindingNext(of: second, text: "Answer 2", createdAt: 7).next.get()
        #expect(third?.user.sequence == 6)
        #expect(third?.toolStored == false)

        // Opening again applies nothing: the index would be created twice and the open throw.
        let again = try AgentRoomStore(.directory(directory))
        #expect(try Self.indexes(inspect) == ["agent_turns_pending"])
        #expect(try Self.applied(inspect) == all)
        #expect(
            try inspect.query("SELECT applied_at FROM schema_migrations WHERE name = ?", [.text(Self.indexMigration)])
                == appliedAt)
        #expect(try await again.nextPendingTurn()?.user.sequence == 6)
        #expect(try await again.pendingTurnCount() == 1)
    }

    /// The names of the indexes made by `CREATE INDEX` (not SQLite's own for keys), by name.
    private static func indexes(_ database: SQLiteDatabase) throws -> [String] {
        try database.rows("SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL ORDER BY name")
            .map { try $0.text("name") }
    }

    /// The migrations recorded, in the order they were applied.
    private static func applied(_ database: SQLiteDatabase) throws -> [String] {
        try database.rows("SELECT name FROM schema_migrations ORDER BY rowid").map { try $0.text("name") }
    }
}
