import Dispatch
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// SIGINT and SIGTERM as something to await: the first `wait()` installs dispatch sources
/// for both (ignoring the default action) and returns when either arrives. A waiting task that
/// is cancelled stops waiting at once (a command that finished on its own ends its watcher).
final class TerminationSignal: Sendable {
    static let shared = TerminationSignal()

    private struct State {
        var installed = false
        var fired = false
        var nextWaiter = 0
        var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
    }

    private let state = Mutex(State())
    nonisolated(unsafe) private var sources: [any DispatchSourceSignal] = []

    /// Returns when SIGINT or SIGTERM arrives (at once if one already did), or when the calling
    /// task is cancelled.
    func wait() async {
        let id = state.withLock { state in
            state.nextWaiter += 1
            return state.nextWaiter
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let (install, resumeNow) = state.withLock { state in
                    defer { state.installed = true }
                    let resumeNow = state.fired || Task.isCancelled
                    if !resumeNow { state.waiters[id] = continuation }
                    return (!state.installed, resumeNow)
                }
                if resumeNow { continuation.resume() }
                if install { self.install() }
            }
        } onCancel: {
            state.withLock { $0.waiters.removeValue(forKey: id) }?.resume()
        }
    }

    private func install() {
        for number in [SIGINT, SIGTERM] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { [self] in fire() }
            source.resume()
            sources.append(source)  // only the first wait() installs, once
        }
    }

    private func fire() {
        let waiters = state.withLock { state in
            state.fired = true
            defer { state.waiters.removeAll() }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }
}
