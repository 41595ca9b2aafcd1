import Foundation
import SybilCore
import Testing

/// `Locked` keeps one turn at a time: threads that add under it lose no update, a throwing
/// body leaves the value as it left it, and the lock is free again afterwards. Under
/// `scripts/sanitize --thread` this suite is also the proof that its turns are visible to
/// ThreadSanitizer (the same loop over the standard library's `Mutex` is reported as a race).
@Suite struct LockedTests {
    private struct Refused: Error {}

    /// Where a lock lives in practice: a stored property of a shared object.
    private final class Counts: Sendable {
        let byKey = Locked([Int: Int]())
    }

    @Test func threadsAddingUnderTheLockLoseNoUpdate() async {
        let counts = Counts()
        let threads = 4
        let rounds = 5_000
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<threads {
                group.addTask {
                    for round in 0..<rounds {
                        counts.byKey.withLock { $0[round % 16, default: 0] += 1 }
                        if round % 1_000 == 0 { await Task.yield() }
                    }
                }
            }
        }
        let total = counts.byKey.withLock { $0.values.reduce(0, +) }
        #expect(total == threads * rounds)
    }

    @Test func aThrowingBodyKeepsItsChangesAndFreesTheLock() {
        let value = Locked(1)
        #expect(throws: Refused.self) {
            try value.withLock { (number: inout Int) throws(Refused) in
                number = 2
                throw Refused()
            }
        }
        #expect(value.withLock { $0 } == 2)
        value.withLock { $0 += 1 }
        #expect(value.withLock { $0 } == 3)
    }
}
