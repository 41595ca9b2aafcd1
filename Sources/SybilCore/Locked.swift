import CSybilSanitizer
import Synchronization

/// A value only one thread reaches at a time: the standard library's `Mutex`, whose turns are
/// also announced to ThreadSanitizer.
///
/// On Linux `Mutex` parks waiters on a futex inside the uninstrumented runtime, so under
/// `scripts/sanitize --thread` two threads' turns look unordered and every access they guard
/// is reported as a race. `Locked` tells the sanitizer where each turn begins and ends (a
/// no-op in every other build), so its reports are the real ones.
///
/// `withLock` is never inlined into its caller. On Linux `Mutex` records its owner by the
/// thread id it reads from a thread-local cache, and Swift 6.3's optimizer, inlining a turn
/// into an async function, computed that thread-local address before a suspension point and
/// used it after the task resumed on another thread: the lock was taken under the old thread's
/// id and the unlock trapped ("Call to unlock Mutex on a thread which hasn't acquired the
/// lock"), which crashed `sybil serve` under concurrent requests. A turn in a function of its
/// own reads the thread's id where it runs. `scripts/check-async-locks` checks a release build
/// for a thread-id read left inside any async function.
public struct Locked<Value: ~Copyable>: ~Copyable, Sendable {
    // Inlinable, so that a caller in another module gets `withLock` specialized for its value
    // and body: unspecialized, every turn looked up the generic types' metadata at run time.
    // Never inlined, though (see above): the specialization stays a call of its own.
    @usableFromInline let mutex: Mutex<Value>
    /// Stands for this lock in the sanitizer's bookkeeping: an address that never moves.
    @usableFromInline let identity = Identity()

    @usableFromInline final class Identity: Sendable {
        @usableFromInline init() {}
    }

    /// A lock around `initialValue`.
    public init(_ initialValue: consuming sending Value) {
        mutex = Mutex(initialValue)
    }

    /// Runs `body` with the value while holding the lock, and returns what it returns.
    @inlinable
    @inline(never)
    public borrowing func withLock<Result: ~Copyable, E: Error>(
        _ body: (inout sending Value) throws(E) -> sending Result
    ) throws(E) -> sending Result {
        let address = Unmanaged.passUnretained(identity).toOpaque()
        return try mutex.withLock { (value: inout sending Value) throws(E) -> sending Result in
            sybil_sanitizer_acquire(address)
            defer { sybil_sanitizer_release(address) }
            return try body(&value)
        }
    }
}
