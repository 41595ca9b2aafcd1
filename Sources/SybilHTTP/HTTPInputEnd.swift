import SybilCore

/// The end of the client's input on a request's connection: the peer has sent all it will
/// (`read` returned 0). TCP does not tell a half-close (`shutdown(SHUT_WR)`: the client still
/// reads its answers) from a client that closed and is gone, so a handler that waits for news —
/// a long poll, a wait for the service to come up — stops waiting when the input ends and
/// answers at once with what it has: a half-closed client still receives that answer, a gone
/// one never needed more, and no waiting handler outlives its client by more than a moment. A
/// handler that does not wait need not look: the requests already read are answered in order
/// either way, and a write that fails (the client reset) cancels the handler.
public final class HTTPInputEnd: Sendable {
    private let signal = GenerationSignal()

    /// An input that has not ended (``end()`` ends it).
    init() {}

    /// The input of requests built outside a server (tests, embedders): it never ends.
    static let never = HTTPInputEnd()

    /// Whether the client's input has ended.
    public var hasEnded: Bool { signal.generation > 0 }

    /// The peer sent all it will: wakes every waiter (once).
    func end() {
        guard !hasEnded else { return }
        signal.fire()
    }

    /// Returns once the input has ended (at once if it has), or when the waiting task is
    /// cancelled.
    public func wait() async {
        await signal.wait(after: 0)
    }

    /// Runs `work` until it returns or the input ends, whichever comes first (the other is then
    /// cancelled); returns whether `work` returned first. A handler's wait goes in `work`.
    public func unlessEnded(_ work: @escaping @Sendable () async -> Void) async -> Bool {
        guard !hasEnded else { return false }
        return await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                await work()
                return true
            }
            group.addTask {
                await self.wait()
                return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
    }
}
