import Foundation

/// Runs `body` on a thread of its own and returns what it returns: blocking work in a test
/// (socket reads, a pipe's open) never holds one of the cooperative pool's few threads that
/// the code under test needs, nor waits on a dispatch queue that shares them (on Linux the
/// global queues and the pool draw on the same threads).
public func blocking<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        Thread { continuation.resume(returning: body()) }.start()
    }
}
