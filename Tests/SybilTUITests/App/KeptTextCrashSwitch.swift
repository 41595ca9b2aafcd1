import SybilCore
import SybilStore

/// A process that dies at the first write finished after ``arm()``: that write is on disk,
/// every later one (of the outbox, through ``checkpoint``, and of the kept texts, through
/// ``store(over:)``) fails before it changes anything, as if the process were gone.
final class KeptTextCrashSwitch: Sendable {
    struct SimulatedCrash: Error, CustomStringConvertible {
        var description: String { "the process died" }
    }

    /// A key-value store whose writes stop once the process died.
    final class Store: KeyValueStore {
        let base: any KeyValueStore
        let crash: KeptTextCrashSwitch

        init(base: any KeyValueStore, crash: KeptTextCrashSwitch) {
            self.base = base
            self.crash = crash
        }

        func data(forKey key: String) throws -> [UInt8]? { try base.data(forKey: key) }

        func set(_ data: [UInt8], forKey key: String) throws {
            try crash.beforeWrite()
            try base.set(data, forKey: key)
            crash.afterWrite()
        }

        func removeValue(forKey key: String) throws {
            try crash.beforeWrite()
            try base.removeValue(forKey: key)
            crash.afterWrite()
        }
    }

    private let state = Locked((armed: false, dead: false))

    var isDead: Bool { state.withLock { $0.dead } }

    /// The process dies now.
    func die() { state.withLock { $0.dead = true } }

    /// The next write to finish is the last.
    func arm() { state.withLock { $0.armed = true } }

    func beforeWrite() throws {
        if isDead { throw SimulatedCrash() }
    }

    func afterWrite() {
        state.withLock { state in
            if state.armed { state.dead = true }
        }
    }

    /// `base`, dying with this process.
    func store(over base: any KeyValueStore) -> Store { Store(base: base, crash: self) }

    /// The outbox's checkpoint: a write starting after the death fails at its first step; the
    /// write that finishes (its directory synced) while armed is the last.
    var checkpoint: @Sendable (AtomicFile.Step) throws -> Void {
        { [self] step in
            if step == .createdTemporary { try beforeWrite() }
            if step == .syncedDirectory { afterWrite() }
        }
    }
}
