import SybilClient
import SybilCore
import SybilStore
import SybilWire
import Testing

/// A desktop that takes submissions the way the real one does: each call key runs at most
/// once (a repeat gets the first receipt), and it records what it delivered. Tests choose how
/// it answers and can make it "crash" the phone after delivering (the receipt never arrives).
final class FakeDesktop: WorkspaceSubmitRPC {
    enum Behaviour: Sendable {
        case accept
        case reject(String)
        case fail(String)
        /// Delivers, then the phone dies before reading the receipt: `phoneStore` stops taking
        /// writes, as a dead process writes nothing more.
        case crashPhoneAfterDelivery(phoneStore: FailingKeyValueStore)
        /// Never answers (the phone's 20 s timeout decides).
        case hang
    }

    struct SimulatedCrash: Error {}

    private struct State {
        var behaviour: Behaviour = .accept
        var receipts: [String: WorkspaceSubmitReceipt] = [:]
        var delivered: [WorkspaceSubmission] = []
        var calls = 0
        var callWaiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
    }

    private let state = Locked(State())

    var behaviour: Behaviour {
        get { state.withLock { $0.behaviour } }
        set { state.withLock { $0.behaviour = newValue } }
    }

    /// Entries delivered, once each, in order.
    var delivered: [WorkspaceSubmission] { state.withLock { $0.delivered } }
    /// Submissions received, repeats included.
    var calls: Int { state.withLock { $0.calls } }

    /// Returns once `count` submissions have been received (the phone's call reached the desktop).
    func waitForCalls(_ count: Int) async {
        await withCheckedContinuation { continuation in
            let reached = state.withLock { state in
                if state.calls >= count { return true }
                state.callWaiters.append((count, continuation))
                return false
            }
            if reached { continuation.resume() }
        }
    }

    func codexChatSubmit(_ entry: WorkspaceSubmission) async throws -> WorkspaceSubmitReceipt {
        let (behaviour, earlier, ready) = state.withLock {
            state -> (Behaviour, WorkspaceSubmitReceipt?, [CheckedContinuation<Void, Never>]) in
            state.calls += 1
            let calls = state.calls
            let ready = state.callWaiters.filter { $0.count <= calls }.map(\.continuation)
            state.callWaiters.removeAll { $0.count <= calls }
            return (state.behaviour, state.receipts[entry.callKey], ready)
        }
        for waiter in ready { waiter.resume() }
        if let earlier { return earlier }
        switch behaviour {
        case .accept:
            return record(entry, receipt(entry, .accepted(runId: "run-1")))
        case .reject(let reason):
            return record(entry, receipt(entry, .rejected(reason: reason)), delivered: false)
        case .fail(let reason):
            throw FakeDesktopError(description: reason)
        case .crashPhoneAfterDelivery(let phoneStore):
            _ = record(entry, receipt(entry, .accepted(runId: "run-1")))
            phoneStore.failWrites(true)
            throw SimulatedCrash()
        case .hang:
            // Never answers; the phone's timeout (on its manual clock) cancels the call.
            let (never, continuation) = AsyncStream<Never>.makeStream()
            for await _ in never {}
            continuation.finish()
            throw CancellationError()
        }
    }

    private func receipt(_ entry: WorkspaceSubmission, _ outcome: WorkspaceSubmitReceipt.Outcome)
        -> WorkspaceSubmitReceipt
    {
        WorkspaceSubmitReceipt(operationId: entry.operationId, mutationId: entry.mutationId, outcome: outcome)
    }

    private func record(
        _ entry: WorkspaceSubmission, _ receipt: WorkspaceSubmitReceipt, delivered: Bool = true
    ) -> WorkspaceSubmitReceipt {
        state.withLock { state in
            state.receipts[entry.callKey] = receipt
            if delivered { state.delivered.append(entry) }
        }
        return receipt
    }
}

struct FakeDesktopError: Error, CustomStringConvertible {
    var description: String
}

/// A key-value store that fails writes on demand: a full disk, or a process that died (the
/// data written before stays in `inner` for the next launch).
final class FailingKeyValueStore: KeyValueStore {
    let inner: InMemoryKeyValueStore
    private let failing = Locked(false)

    init(inner: InMemoryKeyValueStore = InMemoryKeyValueStore()) {
        self.inner = inner
    }

    func failWrites(_ fail: Bool) { failing.withLock { $0 = fail } }

    func data(forKey key: String) throws -> [UInt8]? { try inner.data(forKey: key) }

    func set(_ data: [UInt8], forKey key: String) throws {
        if failing.withLock({ $0 }) { throw StorageError(operation: "write", path: key, reason: "disk full") }
        try inner.set(data, forKey: key)
    }

    func removeValue(forKey key: String) throws { try inner.removeValue(forKey: key) }
}
