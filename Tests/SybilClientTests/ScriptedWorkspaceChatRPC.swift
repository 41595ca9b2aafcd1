import SybilClient
import SybilCore
import SybilTesting
import SybilTimeline
import SybilWire
import Testing

/// A desktop that answers only what a test expects. Every call must match the next expected
/// call (anything else is recorded as a test failure and throws), and waits until the test
/// answers it, so tests control the order in which loads finish.
final class ScriptedWorkspaceChatRPC: WorkspaceChatRPC {
    enum Call: Sendable, Hashable, CustomStringConvertible {
        case load(WorkspaceChatKey)
        case pageBefore(WorkspaceChatKey, cursor: String)
        case thread(WorkspaceChatKey, threadId: String)
        case threadPageBefore(WorkspaceChatKey, threadId: String, cursor: String)

        var description: String {
            switch self {
            case .load(let chat): "run.codexChatLoad(\(chat))"
            case .pageBefore(let chat, let cursor): "run.codexChatLoadPageBefore(\(chat), \(cursor))"
            case .thread(let chat, let threadId): "run.codexChatLoadThread(\(chat), \(threadId))"
            case .threadPageBefore(let chat, let threadId, let cursor):
                "run.codexChatLoadThreadPageBefore(\(chat), \(threadId), \(cursor))"
            }
        }
    }

    enum Answer: Sendable {
        case envelope(WorkspaceChatLoadEnvelope)
        case page(WorkspaceChatPage)
        case failure(TestError)
    }

    struct TestError: Error, Sendable, Equatable, CustomStringConvertible {
        var description: String
    }

    struct UnexpectedCall: Error {}

    private struct Waiting {
        var call: Call
        var continuation: CheckedContinuation<Answer, Never>
    }

    private struct State {
        var expected: [Call] = []
        var received: [Call] = []
        var waiting: [Waiting] = []
        var callWaiters: [(id: Int, call: Call, continuation: CheckedContinuation<Bool, Never>)] = []
        var nextWaiter = 0
    }

    private let state = Locked(State())

    /// Calls made so far, in order.
    var received: [Call] { state.withLock { $0.received } }
    /// Calls waiting for an answer.
    var waitingCalls: [Call] { state.withLock { $0.waiting.map(\.call) } }

    /// Allows `call` as the next call.
    func expect(_ call: Call) {
        state.withLock { $0.expected.append(call) }
    }

    /// Returns once `call` is waiting for its answer (signalled by the call itself); records a
    /// failure if it does not arrive within 30 s.
    func waitForCall(_ call: Call, sourceLocation: SourceLocation = #_sourceLocation) async {
        let id = state.withLock { state -> Int in
            state.nextWaiter += 1
            return state.nextWaiter
        }
        let deadline = Task {
            try? await ContinuousClock().sleep(for: .seconds(30))
            self.resumeCallWaiter(id, arrived: false)
        }
        let arrived = await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            let present = state.withLock { state in
                if state.waiting.contains(where: { $0.call == call }) { return true }
                state.callWaiters.append((id, call, continuation))
                return false
            }
            if present { continuation.resume(returning: true) }
        }
        deadline.cancel()
        if !arrived { Issue.record("\(call) never arrived; received \(received)", sourceLocation: sourceLocation) }
    }

    private func resumeCallWaiter(_ id: Int, arrived: Bool) {
        let waiter = state.withLock { state -> CheckedContinuation<Bool, Never>? in
            guard let index = state.callWaiters.firstIndex(where: { $0.id == id }) else { return nil }
            return state.callWaiters.remove(at: index).continuation
        }
        waiter?.resume(returning: arrived)
    }

    /// Answers the oldest waiting `call`.
    func answer(_ call: Call, with answer: Answer, sourceLocation: SourceLocation = #_sourceLocation) {
        let continuation = state.withLock { state -> CheckedContinuation<Answer, Never>? in
            guard let index = state.waiting.firstIndex(where: { $0.call == call }) else { return nil }
            return state.waiting.remove(at: index).continuation
        }
        guard let continuation else {
            Issue.record("no waiting \(call) to answer", sourceLocation: sourceLocation)
            return
        }
        continuation.resume(returning: answer)
    }

    /// Fails the test when an expected call never came or a call still waits.
    func verifyDone(sourceLocation: SourceLocation = #_sourceLocation) {
        let (expected, waiting) = state.withLock { ($0.expected, $0.waiting.map(\.call)) }
        #expect(expected.isEmpty, "expected calls that never came: \(expected)", sourceLocation: sourceLocation)
        #expect(waiting.isEmpty, "calls left unanswered: \(waiting)", sourceLocation: sourceLocation)
    }

    private func hold(_ call: Call) async throws -> Answer {
        let allowed = state.withLock { state -> Bool in
            state.received.append(call)
            guard state.expected.first == call else { return false }
            state.expected.removeFirst()
            return true
        }
        guard allowed else {
            Issue.record("unexpected call \(call); expected \(state.withLock { $0.expected })")
            throw UnexpectedCall()
        }
        let answer = await withCheckedContinuation { continuation in
            let arrived = state.withLock { state in
                state.waiting.append(Waiting(call: call, continuation: continuation))
                let arrived = state.callWaiters.filter { $0.call == call }.map(\.continuation)
                state.callWaiters.removeAll { $0.call == call }
                return arrived
            }
            for waiter in arrived { waiter.resume(returning: true) }
        }
        if case .failure(let error) = answer { throw error }
        return answer
    }

    func codexChatLoad(_ chat: WorkspaceChatKey) async throws -> WorkspaceChatLoadEnvelope {
        guard case .envelope(let envelope) = try await hold(.load(chat)) else { throw UnexpectedCall() }
        return envelope
    }

    func codexChatLoadPageBefore(_ chat: WorkspaceChatKey, cursor: String) async throws -> WorkspaceChatPage {
        guard case .page(let page) = try await hold(.pageBefore(chat, cursor: cursor)) else { throw UnexpectedCall() }
        return page
    }

    func codexChatLoadThread(_ chat: WorkspaceChatKey, threadId: String) async throws -> WorkspaceChatPage {
        guard case .page(let page) = try await hold(.thread(chat, threadId: threadId)) else { throw UnexpectedCall() }
        return page
    }

    func codexChatLoadThreadPageBefore(
        _ chat: WorkspaceChatKey, threadId: String, cursor: String
    ) async throws -> WorkspaceChatPage {
        let answer = try await hold(.threadPageBefore(chat, threadId: threadId, cursor: cursor))
        guard case .page(let page) = answer else { throw UnexpectedCall() }
        return page
    }
}

/// Returns once `condition` holds, re-checked when the observable state it reads changes;
/// records a failure if it never does.
@MainActor
func eventually(
    _ what: String, sourceLocation: SourceLocation = #_sourceLocation, _ condition: @escaping @MainActor () -> Bool
) async {
    if !(await ConditionWait.until(condition)) {
        Issue.record("never happened: \(what)", sourceLocation: sourceLocation)
    }
}

@MainActor
extension ScriptedWorkspaceChatRPC {
    /// Expects the newest-window load of `chat` that `action` causes, answers it with
    /// `envelope`, and waits until `host` has applied it. `followUps` are the calls the
    /// applied load itself causes (a look-back's pages), expected after the load.
    func serveLoad(
        of chat: WorkspaceChatKey, with envelope: WorkspaceChatLoadEnvelope,
        to host: @autoclosure @escaping @MainActor () -> WorkspaceChatHost?,
        followedBy followUps: [Call] = [],
        sourceLocation: SourceLocation = #_sourceLocation,
        after action: @MainActor () -> Void
    ) async {
        expect(.load(chat))
        for call in followUps { expect(call) }
        action()
        await waitForCall(.load(chat), sourceLocation: sourceLocation)
        let applied = (host()?.appliedLoads ?? 0) + 1
        answer(.load(chat), with: .envelope(envelope), sourceLocation: sourceLocation)
        await eventually("the load of \(chat) applies", sourceLocation: sourceLocation) {
            host()?.appliedLoads == applied
        }
    }
}
