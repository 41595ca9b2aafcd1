import Dispatch
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// SIGINT and SIGTERM as something to await: the first `wait()` installs dispatch sources
/// for both (ignoring the default action) and returns when either arrives.
final class TerminationSignal: Sendable {
    static let shared = TerminationSignal()

    private let state = Mutex<(installed: Bool, fired: Bool, waiters: [CheckedContinuation<Void, Never>])>(
        (false, false, []))
    nonisolated(unsafe) private var sources: [any DispatchSourceSignal] = []

    func wait() async {
        await withCheckedContinuation { continuation in
            let (install, fired) = state.withLock { state in
                defer { state.installed = true }
                if !state.fired { state.waiters.append(continuation) }
                return (!state.installed, state.fired)
            }
            if fired { continuation.resume() }
            if install { self.install() }
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
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }
}
