import SybilCore
import SybilWire

/// The scripted agent at work in the Agent room: one task that answers the turns the store
/// says are pending, oldest first, one at a time. A submission stores its turn and then
/// ``wake()``s the runner; at start the runner first finishes every turn a previous run left
/// pending (a stop or a crash before the reply), so each user message gets exactly one reply.
///
/// The runner's task is started on, and tracked by, the service's ``ServiceTasks``
/// (``start(on:)``): the service's shutdown cancels and awaits it. A turn cut short stays
/// pending in the store; its finished steps are not repeated.
///
/// A store step that fails (the look for the next turn, a step of a turn: a busy or failing
/// disk) is written to the ``ServerLog`` and tried again by the task itself after a wait on
/// the injected clock (``RetryDelay``: 1 s, doubling to at most 30 s, back to 1 s once a step
/// succeeds); a wake-up, ``finish()`` or the task's cancellation ends the wait early.
final class AgentTurnRunner: Sendable {
    private struct State {
        /// Wake-ups asked for; the task has looked for work after `checked` of them.
        var requested: UInt64 = 1
        var checked: UInt64 = 0
        var idleWaiters: [UInt64: CheckedContinuation<Void, Never>] = [:]
        var nextWaiter: UInt64 = 0
        var stopped = false
        /// ``finish()`` was called: a wait before a retry ends, and the task with it.
        var finishing = false
    }

    /// The state the runner and its task share.
    private final class Shared: Sendable {
        let state = Locked(State())
        /// Fired after each wake-up and at ``finish()``: ends a wait before a retry.
        let bell = GenerationSignal()
    }

    private let wakeups: AsyncStream<Void>.Continuation
    private let stream: AsyncStream<Void>
    private let shared: Shared
    private let work: Work
    private let started = Locked(false)

    /// A runner that does nothing until ``start(on:)``.
    init(
        store: AgentRoomStore, events: Broadcast<AgentStreamEvent>, agent: ScriptedAgent, time: ServerTime,
        pace: Duration, upstream: AgentUpstreamResponder? = nil, log: ServerLog
    ) {
        let (stream, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        wakeups = continuation
        self.stream = stream
        let shared = Shared()
        self.shared = shared
        work = Work(
            store: store, events: events, agent: agent, upstream: upstream, time: time, pace: pace, log: log,
            shared: shared)
    }

    /// Starts the runner's task on `tasks` (once; later calls do nothing): it looks for pending
    /// turns at once. When `tasks` is shutting down nothing starts and the runner counts as
    /// stopped.
    func start(on tasks: ServiceTasks) {
        let first = started.withLock { started in
            defer { started = true }
            return !started
        }
        guard first else { return }
        let work = work
        let stream = stream
        if tasks.start("agent turns", { await work.run(stream) }) == nil { work.stop() }
    }

    deinit {
        finish()
    }

    /// Tells the runner that a turn was stored (it also ends a wait before a retry).
    func wake() {
        shared.state.withLock { $0.requested += 1 }
        shared.bell.fire()
        wakeups.yield()
    }

    /// Returns once the runner has found no pending turn after the last ``wake()`` (or it
    /// stopped): the signal tests wait on instead of polling. While a step failed and waits
    /// to be tried again the runner is not idle (a turn may be owed); it becomes idle once a
    /// retry finds nothing left to answer, or when it stops. Cancelling the waiting task ends
    /// the wait too.
    func waitUntilIdle() async {
        let id = shared.state.withLock { state in
            state.nextWaiter += 1
            return state.nextWaiter
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let idle = shared.state.withLock { state in
                    if state.stopped || state.checked == state.requested || Task.isCancelled { return true }
                    state.idleWaiters[id] = continuation
                    return false
                }
                if idle { continuation.resume() }
            }
        } onCancel: {
            shared.state.withLock { $0.idleWaiters.removeValue(forKey: id) }?.resume()
        }
    }

    /// Ends the wait for wake-ups, so the task ends after the turn in progress (or at once when
    /// its task is cancelled; a turn cut short stays pending for the next start).
    func finish() {
        shared.state.withLock { $0.finishing = true }
        shared.bell.fire()
        wakeups.finish()
    }

    /// The waits before a failed store step is tried again: ``first``, doubled after each
    /// failure up to ``longest``, and ``first`` again once a step succeeded.
    struct RetryDelay: Sendable {
        /// The wait after the first failure.
        static let first = Duration.seconds(1)
        /// The longest wait.
        static let longest = Duration.seconds(30)
        private var upcoming = first

        /// The wait before the next try; the one after it is twice as long (at most ``longest``).
        mutating func take() -> Duration {
            defer { upcoming = min(upcoming * 2, Self.longest) }
            return upcoming
        }

        /// A step succeeded: the next failure waits ``first``.
        mutating func reset() {
            upcoming = Self.first
        }
    }

    /// What the task works with (everything but the runner itself, so dropping the runner
    /// ends the task's wait for wake-ups).
    private struct Work: Sendable {
        let store: AgentRoomStore
        let events: Broadcast<AgentStreamEvent>
        let agent: ScriptedAgent
        /// The real model answering instead of the scripted agent's text, when there is one.
        let upstream: AgentUpstreamResponder?
        let time: ServerTime
        let pace: Duration
        let log: ServerLog
        let shared: Shared

        /// A look for the next pending turn: the wake-ups asked for before it, and what it found
        /// (a failed look is not "no turn pending").
        private typealias Lookup = (asked: UInt64, turn: Result<AgentRoomStore.PendingTurn?, any Error>)

        /// How answering a turn ended.
        private enum Outcome {
            /// The reply is stored, with the look for the next turn made with it.
            case answered(next: Lookup)
            /// A store step failed; the turn stays pending with the steps stored before.
            case failed(any Error)
            /// The task was cancelled; the turn stays pending for the next start.
            case stopped
        }

        func run(_ wakeups: AsyncStream<Void>) async {
            defer { stop() }
            var iterator = wakeups.makeAsyncIterator()
            // The look made with the last reply, in the same turn of the store.
            var carried: Lookup?
            var delay = RetryDelay()
            while !Task.isCancelled {
                let lookup: Lookup
                if let found = carried {
                    lookup = found
                    carried = nil
                } else {
                    let asked = shared.state.withLock { $0.requested }
                    do {
                        lookup = (asked, .success(try await store.nextPendingTurn()))
                    } catch {
                        lookup = (asked, .failure(error))
                    }
                }
                let failure: String
                switch lookup.turn {
                case .success(nil):
                    delay.reset()
                    settle(lookup.asked)
                    guard !Task.isCancelled, await iterator.next() != nil else { return }
                    continue
                case .success(let turn?):
                    switch await answer(turn) {
                    case .answered(let next):
                        delay.reset()
                        carried = next
                        continue
                    case .failed(let error):
                        failure = "answering turn \(turn.user.message.messageId) failed: \(error)"
                    case .stopped:
                        return
                    }
                case .failure(let error):
                    failure = "looking for the next pending turn failed: \(error)"
                }
                // The turn stays pending and nothing is settled: the runner is not idle. It is
                // tried again after the wait, or sooner on a wake-up; a stop ends the task.
                guard !Task.isCancelled else { return }
                let wait = delay.take()
                log("sybil serve: agent turns: \(failure); trying again in \(wait.components.seconds) s")
                guard await backOff(wait, after: lookup.asked) else { return }
            }
        }

        /// Waits `wait` on the injected clock before a retry, or less: until a wake-up after
        /// `asked`, ``AgentTurnRunner/finish()`` or the task's cancellation. Returns whether
        /// to try again (false: the task ends).
        private func backOff(_ wait: Duration, after asked: UInt64) async -> Bool {
            await withTaskGroup(of: Void.self) { group in
                group.addTask { try? await time.sleep(wait) }
                group.addTask { await wokenUp(after: asked) }
                await group.next()
                group.cancelAll()
            }
            return !Task.isCancelled && !shared.state.withLock { $0.finishing }
        }

        /// Returns once a wake-up after `asked` was asked for, the runner is finishing, or the
        /// task is cancelled.
        private func wokenUp(after asked: UInt64) async {
            while !Task.isCancelled {
                // Noted before the look: a wake-up after it fires the bell past it.
                let generation = shared.bell.generation
                if shared.state.withLock({ $0.requested > asked || $0.finishing }) { return }
                await shared.bell.wait(after: generation)
            }
        }

        /// Answers one turn: the tool call (unless stored already), then the reply, stored with
        /// a look for the next pending turn.
        ///
        /// The turn's events are held and published together before every wait a client could
        /// see (a paced step, the upstream model's answer) and when the turn ends: each stream
        /// takes them in one wake-up, not one per event. With a pace that is what was published
        /// before each pause; without one (tests, benchmarks) the whole turn goes out at its
        /// end, a store step or two after its first event.
        private func answer(_ turn: AgentRoomStore.PendingTurn) async -> Outcome {
            let reply = agent.reply(to: turn.user.message.text)
            var held: [AgentStreamEvent] = [.activity(.working, detail: reply.thinking)]
            defer {
                held.append(.activity(.idle, detail: ""))
                events.publish(contentsOf: held)
            }
            do {
                if !turn.toolStored {
                    try await pause(publishing: &held)
                    let tool = try await store.storeToolStep(
                        of: turn, text: "$ \(reply.activity)", createdAt: time.epochMilliseconds())
                    held.append(.message(tool.message))
                    held.append(.activity(.working, detail: reply.activity))
                }
                try await pause(publishing: &held)
                var text = reply.text
                if let upstream {
                    held.append(.activity(.working, detail: "Asking \(upstream.model)"))
                    publish(&held)
                    let history = try await store.messages(
                        after: nil, before: turn.user.sequence + 1, limit: AgentUpstreamResponder.maximumHistory * 2)
                    text = await upstream.reply(to: history.rows.map(\.message))
                }
                // Read before the store looks for the next turn: settling on a look that found none
                // covers only the wake-ups asked for before it.
                let asked = shared.state.withLock { $0.requested }
                let answer = try await store.storeReplyFindingNext(
                    of: turn, text: text, createdAt: time.epochMilliseconds())
                held.append(.message(answer.reply.message))
                return .answered(next: (asked, answer.next))
            } catch {
                // A pause or a step cut short by a stop is not a failure to report.
                if Task.isCancelled || error is CancellationError { return .stopped }
                return .failed(error)
            }
        }

        /// Publishes the held events as one burst.
        private func publish(_ held: inout [AgentStreamEvent]) {
            events.publish(contentsOf: held)
            held.removeAll()
        }

        /// The pause between two steps of a turn, after publishing the held events; throws when
        /// the task is cancelled. Without a pace it only checks for cancellation (nothing is
        /// published: the next step follows at once): a clock's sleep of zero still schedules a
        /// timer on the global executor and resumes the task from there, a hop to another thread
        /// and back for every step.
        private func pause(publishing held: inout [AgentStreamEvent]) async throws {
            guard pace > .zero else { return try Task.checkCancellation() }
            publish(&held)
            try await time.sleep(pace)
        }

        /// No pending turn was found after wake-up `asked`.
        private func settle(_ asked: UInt64) {
            let waiters = shared.state.withLock { state -> [CheckedContinuation<Void, Never>] in
                state.checked = max(state.checked, asked)
                guard state.checked == state.requested else { return [] }
                defer { state.idleWaiters.removeAll() }
                return Array(state.idleWaiters.values)
            }
            for waiter in waiters { waiter.resume() }
        }

        func stop() {
            let waiters = shared.state.withLock { state -> [CheckedContinuation<Void, Never>] in
                state.stopped = true
                defer { state.idleWaiters.removeAll() }
                return Array(state.idleWaiters.values)
            }
            for waiter in waiters { waiter.resume() }
        }
    }
}
