import Dispatch
import Foundation
import SybilCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// SIGINT and SIGTERM as something to await: while anyone waits, dispatch sources take both
/// (their default action ignored); `wait()` returns when either arrives. After the first signal,
/// and once the last waiter stopped waiting, the default action is back, so a second Ctrl+C (or
/// one after a command finished watching) ends the process as usual. A waiting task that is
/// cancelled stops waiting at once.
final class TerminationSignal: Sendable {
    static let shared = TerminationSignal()

    private struct State {
        var sources: [any DispatchSourceSignal] = []
        var fired = false
        var nextWaiter = 0
        var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
    }

    private let state = Locked(State())
    private static let numbers = [SIGINT, SIGTERM]

    /// Returns when SIGINT or SIGTERM arrives (at once if one already did), or when the calling
    /// task is cancelled.
    func wait() async {
        let id = state.withLock { state in
            state.nextWaiter += 1
            return state.nextWaiter
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let resumeNow = state.withLock { state in
                    let resumeNow = state.fired || Task.isCancelled
                    if !resumeNow {
                        state.waiters[id] = continuation
                        if state.sources.isEmpty { state.sources = install() }
                    }
                    return resumeNow
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            let waiter = state.withLock { state in
                let waiter = state.waiters.removeValue(forKey: id)
                if state.waiters.isEmpty { Self.uninstall(&state.sources) }
                return waiter
            }
            waiter?.resume()
        }
    }

    /// Takes both signals through dispatch sources (called with the state locked).
    private func install() -> [any DispatchSourceSignal] {
        Self.numbers.map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { [self] in fire() }
            source.resume()
            return source
        }
    }

    /// Gives both signals their default action back (called with the state locked).
    private static func uninstall(_ sources: inout [any DispatchSourceSignal]) {
        guard !sources.isEmpty else { return }
        for source in sources { source.cancel() }
        sources = []
        for number in numbers { signal(number, SIG_DFL) }
    }

    private func fire() {
        let waiters = state.withLock { state in
            state.fired = true
            Self.uninstall(&state.sources)
            defer { state.waiters.removeAll() }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }
}
