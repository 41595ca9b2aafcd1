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
    let lockedSeconds = best {
        for turn in 0..<turns {
            let count = locked.withLock { state -> Int in
                state.count &+= 1
                state.total &+= turn
                return state.count
            }
            if count < 0 { blackHole(count) }
        }
    }
    let mutexSeconds = best {
        for turn in 0..<turns {
            let count = mutex.withLock { state -> Int in
                state.count &+= 1
                state.total &+= turn
                return state.count
            }
            if count < 0 { blackHole(count) }
        }
    }
    blackHole(locked.withLock { $0.total })
    blackHole(mutex.withLock { $0.total })
    let lockedNanoseconds = lockedSeconds / Double(turns) * 1e9
    let mutexNanoseconds = mutexSeconds / Double(turns) * 1e9
    print(
        "lock: \(turns) uncontended turns; Locked.withLock \(format(lockedNanoseconds)) ns per turn, "
            + "Mutex.withLock \(format(mutexNanoseconds)) ns; ratio \(format(lockedSeconds / mutexSeconds)) x")
}
