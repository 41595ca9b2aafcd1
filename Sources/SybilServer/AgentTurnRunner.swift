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
final class AgentTurnRunner: Sendable {
    private struct State {
        /// Wake-ups asked for; the task has looked for work after `checked` of them.
        var requested: UInt64 = 1
        var checked: UInt64 = 0
        var idleWaiters: [CheckedContinuation<Void, Never>] = []
        var stopped = false
    }

    /// The state the runner and its task share.
    private final class Shared: Sendable {
        let state = Locked(State())
    }

    private let wakeups: AsyncStream<Void>.Continuation
    private let stream: AsyncStream<Void>
    private let shared: Shared
    private let work: Work
    private let started = Locked(false)

    /// A runner that does nothing until ``start(on:)``.
    init(
        store: AgentRoomStore, events: Broadcast<AgentStreamEvent>, agent: ScriptedAgent, time: ServerTime,
        pace: Duration, upstream: AgentUpstreamResponder? = nil
    ) {
        let (stream, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        wakeups = continuation
        self.stream = stream
        let shared = Shared()
        self.shared = shared
        work = Work(
            store: store, events: events, agent: agent, upstream: upstream, time: time, pace: pace, shared: shared)
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
        wakeups.finish()
    }

    /// Tells the runner that a turn was stored.
    func wake() {
        shared.state.withLock { $0.requested += 1 }
        wakeups.yield()
    }

    /// Returns once the runner has found no pending turn after the last ``wake()`` (or it
    /// stopped): the signal tests wait on instead of polling.
    func waitUntilIdle() async {
        await withCheckedContinuation { continuation in
            let idle = shared.state.withLock { state in
                if state.stopped || state.checked == state.requested { return true }
                state.idleWaiters.append(continuation)
                return false
            }
            if idle { continuation.resume() }
        }
    }

    /// Ends the wait for wake-ups, so the task ends after the turn in progress (or at once when
    /// its task is cancelled; a turn cut short stays pending for the next start).
    func finish() {
        wakeups.finish()
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
        let shared: Shared

        /// A look for the next pending turn: the wake-ups asked for before it, and what it found.
        private typealias Lookup = (asked: UInt64, turn: AgentRoomStore.PendingTurn?)

        func run(_ wakeups: AsyncStream<Void>) async {
            defer { stop() }
            var iterator = wakeups.makeAsyncIterator()
            // The look made with the last reply, in the same turn of the store.
            var carried: Lookup?
            while !Task.isCancelled {
                let lookup: Lookup
                if let found = carried {
                    lookup = found
                    carried = nil
                } else {
                    let asked = shared.state.withLock { $0.requested }
                    lookup = (asked, try? await store.nextPendingTurn())
                }
                if let turn = lookup.turn {
                    // A failed step (storage, or a stop) leaves the turn pending; it is tried
                    // again on the next wake-up or start, never in a tight loop.
                    if let next = await answer(turn) {
                        carried = next
                        continue
                    }
                } else {
                    settle(lookup.asked)
                }
                guard !Task.isCancelled, await iterator.next() != nil else { return }
            }
        }

        /// Answers one turn: the tool call (unless stored already), then the reply, stored with
        /// a look for the next pending turn; `nil` when a step failed.
        ///
        /// The turn's events are held and published together before every wait a client could
        /// see (a paced step, the upstream model's answer) and when the turn ends: each stream
        /// takes them in one wake-up, not one per event. With a pace that is what was published
        /// before each pause; without one (tests, benchmarks) the whole turn goes out at its
        /// end, a store step or two after its first event.
        private func answer(_ turn: AgentRoomStore.PendingTurn) async -> Lookup? {
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
                return (asked, try? answer.next.get())
            } catch {
                return nil
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
                return state.idleWaiters
            }
            for waiter in waiters { waiter.resume() }
        }

        func stop() {
            let waiters = shared.state.withLock { state -> [CheckedContinuation<Void, Never>] in
                state.stopped = true
                defer { state.idleWaiters.removeAll() }
                return state.idleWaiters
            }
            for waiter in waiters { waiter.resume() }
        }
    }
}
