import SybilStore

/// The call ledger: each answered call key with its params' fingerprint and the answer given,
/// so a retried call gets the first answer (or a conflict for other params) and its effect
/// happens once. A value over its owner's connection, so a call's entry is written in the
/// same transaction as its effect (``WorkspaceStore`` confines it to one actor).
struct WorkspaceCallLedger {
    /// A call's key, its params' fingerprint, and the answer given its run id.
    struct CallRecord: Sendable {
        var key: String
        var fingerprint: String
        var result: @Sendable (_ runId: String) -> String
    }

    let database: SQLiteDatabase

    /// The stored fingerprint and result of `callKey`, if it was answered.
    func answer(_ callKey: String) throws -> (fingerprint: String, result: String)? {
        try database.rows("SELECT fingerprint, result FROM ws_calls WHERE call_key = ?", [.text(callKey)]).first.map {
            (try $0.text("fingerprint"), try $0.text("result"))
        }
    }

    /// Remembers the answer to `callKey` (the first one stays when it is already stored).
    func record(_ callKey: String, fingerprint: String, result: String) throws {
        try database.query(
            "INSERT OR IGNORE INTO ws_calls (call_key, fingerprint, result) VALUES (?, ?, ?)",
            [.text(callKey), .text(fingerprint), .text(result)])
    }

    /// Remembers `call`'s answer for run `runId`.
    func record(_ call: CallRecord, runId: String) throws {
        try record(call.key, fingerprint: call.fingerprint, result: call.result(runId))
    }
}
