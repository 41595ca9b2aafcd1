import SybilCore
import Synchronization

// `lock`: one uncontended turn of SybilCore's `Locked` from another module (this one), as the
// socket client, the server and the stores take it on every read, write and state change,
// against the standard library's `Mutex` it wraps, taken the same way in the same run. What
// `Locked` adds is its ThreadSanitizer annotations (two calls into an empty C function in a
// normal build); a `withLock` that is not specialized for its caller also pays a run-time
// lookup of its generic types on every turn.

/// Times `turns` turns of each lock, each adding to an `Int` and reading a tuple back.
func benchmarkLock(turns: Int) {
    let locked = Locked((count: 0, total: 0))
    let mutex = Mutex((count: 0, total: 0))
    // Both locks run the same body through the same loop; the loop is inlined into each
    // closure's call site, so each closure's `withLock` is compiled as a caller would.
    let lockedSeconds = timeTurns(turns) { turn in
        locked.withLock { state -> Int in lockTurn(&state, turn) }
    }
    let mutexSeconds = timeTurns(turns) { turn in
        mutex.withLock { state -> Int in lockTurn(&state, turn) }
    }
    blackHole(locked.withLock { $0.total })
    blackHole(mutex.withLock { $0.total })
    let lockedNanoseconds = lockedSeconds / Double(turns) * 1e9
    let mutexNanoseconds = mutexSeconds / Double(turns) * 1e9
    print(
        "lock: \(turns) uncontended turns; Locked.withLock \(format(lockedNanoseconds)) ns per turn, "
            + "Mutex.withLock \(format(mutexNanoseconds)) ns; ratio \(format(lockedSeconds / mutexSeconds)) x")
}

/// The work of one turn while the lock is held.
@inline(__always)
private func lockTurn(_ state: inout (count: Int, total: Int), _ turn: Int) -> Int {
    state.count &+= 1
    state.total &+= turn
    return state.count
}

/// The best time of `turns` calls of `turn`.
@inline(__always)
private func timeTurns(_ turns: Int, _ turn: (Int) -> Int) -> Double {
    best {
        for index in 0..<turns {
            let count = turn(index)
            if count < 0 { blackHole(count) }
        }
    }
}
