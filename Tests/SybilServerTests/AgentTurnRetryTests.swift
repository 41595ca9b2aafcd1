import Foundation
import SybilCore
import SybilTesting
import SybilWire
import Testing

@testable import SybilServer

/// A store step that fails (the look for the next turn, a step of a turn) is reported in the
/// server's log and tried again by the Agent's runner itself, after a wait on the injected
/// clock that starts at 1 s, doubles up to 30 s and starts again after a success; a wake-up
/// ends the wait early, a stop ends the task. Each user message still gets exactly one reply.
@Suite("Agent turns: a failed store step is retried after a backoff", .timeLimit(.minutes(1)))
struct AgentTurnRetryTests {
    /// What a busy database says.
    private struct Busy: Error, CustomStringConvertible {
        var description: String { "SQLite error 5: database is locked" }
    }

    /// A runner on an in-memory store whose steps fail as scripted, on a manual clock whose
    /// sleeps are recorded, with its log captured.
    private final class Rig: Sendable {
        /// What the store's steps do and what the runner did, shared with the store's hook,
        /// the clock's sleep and the log.
        final class Probe: Sendable {
            /// For each step, whether its next calls fail, in order; a step with no entry left works.
            let script: Locked<[AgentRoomStore.Step: [Bool]]>
            /// Every step fails while this is set.
            let failingAlways = Locked(false)
            /// The durations the runner asked the clock to sleep.
            let sleeps = Locked<[Duration]>([])
            /// The server log's lines.
            let lines = Locked<[String]>([])

            init(_ script: [AgentRoomStore.Step: [Bool]]) {
                self.script = Locked(script)
            }

            /// Whether `step` fails this time.
            func fails(_ step: AgentRoomStore.Step) -> Bool {
                let scripted = script.withLock { script -> Bool in
                    guard var next = script[step], !next.isEmpty else { return false }
                    defer { script[step] = next }
                    return next.removeFirst()
                }
                return scripted || failingAlways.withLock { $0 }
            }
        }

        let clock: ManualClock
        let probe: Probe
        let store: AgentRoomStore
        let runner: AgentTurnRunner
        let tasks = ServiceTasks()

        init(_ script: [AgentRoomStore.Step: [Bool]] = [:]) throws {
            let probe = Probe(script)
            let clock = ManualClock()
            self.clock = clock
            self.probe = probe
            store = try AgentRoomStore(.inMemory) { step in
                if probe.fails(step) { throw Busy() }
            }
            var time = ServerTime(clock: clock) { AppHarness.epochBase }
            time.sleep = { duration in
                probe.sleeps.withLock { $0.append(duration) }
                try await clock.sleep(for: duration)
            }
            runner = AgentTurnRunner(
                store: store, events: Broadcast(), agent: ScriptedAgent(seed: 1), time: time, pace: .zero,
                log: ServerLog { line in probe.lines.withLock { $0.append(line) } })
        }

        /// Stores user message `number` as a submission does (the runner is not woken).
        func submit(_ number: Int) async throws {
            _ = try await store.submit(
                AgentRoomSubmission(requestId: "req-\(number)", text: "Question \(number)", createdAt: Int64(number)),
                fingerprint: "f-\(number)", maxTotalBytes: 1)
        }

        /// The roles of the stored messages, in order.
        func roles() async throws -> [AgentRoomMessage.Role] {
            try await store.messages(after: nil, before: nil, limit: 100).rows.map(\.message.role)
        }

        /// What moved the runner on: it sleeps on the clock (a wait before a retry), or it is idle.
        enum Step { case slept, idle }

        /// Returns once the runner sleeps on the clock or is idle, whichever it signals first.
        func nextStep() async -> Step {
            await withTaskGroup(of: Step.self) { group in
                group.addTask { [clock] in
                    await clock.waitForSleepers(count: 1, limit: .seconds(3600))
                    return .slept
                }
                group.addTask { [runner] in
                    await runner.waitUntilIdle()
                    return .idle
                }
                let first = await group.next() ?? .idle
                group.cancelAll()
                return first
            }
        }

        /// The log's lines say what failed and nothing a user wrote.
        func expectLogClean(_ count: Int, sourceLocation: SourceLocation = #_sourceLocation) {
            let lines = probe.lines.withLock { $0 }
            #expect(lines.count == count, "\(lines)", sourceLocation: sourceLocation)
            for line in lines {
                #expect(line.hasPrefix("sybil serve: agent turns: "), sourceLocation: sourceLocation)
                #expect(line.contains("database is locked"), sourceLocation: sourceLocation)
                #expect(!line.contains("Question"), "no message text in the log", sourceLocation: sourceLocation)
            }
        }
    }

    /// Fails if a failed look is taken for "no turn pending" (the runner goes idle and the
    /// message waits for the next one), if the turn is answered before the clock reaches the
    /// retry, or if the waits are not 1 s and then 2 s.
    @Test func aLookThatFailsTwiceIsTriedAgainAfterTheBackoff() async throws {
        let rig = try Rig([.lookup: [true, true]])
        try await rig.submit(1)
        rig.runner.start(on: rig.tasks)

        #expect(await rig.nextStep() == .slept, "the failed look is tried again, not taken for no turn")
        #expect(rig.probe.sleeps.withLock { $0 } == [.seconds(1)])
        #expect(try await rig.roles() == [.user], "no reply before the clock moves")
        rig.expectLogClean(1)
        #expect(rig.probe.lines.withLock { $0 }.first?.contains("looking for the next pending turn failed") == true)

        rig.clock.advance(by: .seconds(1))
        #expect(await rig.clock.waitForSleeps(after: 1))
        #expect(await rig.nextStep() == .slept)
        #expect(rig.probe.sleeps.withLock { $0 } == [.seconds(1), .seconds(2)])
        #expect(try await rig.roles() == [.user])

        rig.clock.advance(by: .seconds(2))
        await rig.runner.waitUntilIdle()
        #expect(try await rig.roles() == [.user, .tool, .assistant])
        #expect(try await rig.store.pendingTurnCount() == 0)
        rig.expectLogClean(2)
        #expect(rig.clock.sleeperCount == 0)
        rig.runner.finish()
        await rig.tasks.quiescent()
    }

    /// Fails if a failed look made with a stored reply is taken for "no turn pending" (the
    /// second message would wait for a third), or if a turn is answered twice.
    @Test func aFailedLookAfterAReplyStillAnswersTheNextTurn() async throws {
        // The first look (at start) works, the one made with the first reply fails.
        let rig = try Rig([.lookup: [false, true]])
        try await rig.submit(1)
        try await rig.submit(2)
        rig.runner.start(on: rig.tasks)

        #expect(await rig.nextStep() == .slept, "the second turn is still owed")
        #expect(rig.probe.sleeps.withLock { $0 } == [.seconds(1)])
        #expect(try await rig.roles() == [.user, .user, .tool, .assistant])
        #expect(try await rig.store.pendingTurnCount() == 1)
        rig.expectLogClean(1)

        rig.clock.advance(by: .seconds(1))
        await rig.runner.waitUntilIdle()
        #expect(try await rig.roles() == [.user, .user, .tool, .assistant, .tool, .assistant])
        #expect(try await rig.store.pendingTurnCount() == 0)
        rig.runner.finish()
        await rig.tasks.quiescent()
    }

    /// Fails if a turn whose reply could not be stored waits for the next message instead of
    /// being tried again, or if its stored tool step is stored again.
    @Test func aReplyThatCouldNotBeStoredIsTriedAgainWithoutRepeatingTheToolStep() async throws {
        let rig = try Rig([.reply: [true]])
        try await rig.submit(1)
        rig.runner.start(on: rig.tasks)

        #expect(await rig.nextStep() == .slept)
        #expect(try await rig.roles() == [.user, .tool])
        rig.expectLogClean(1)
        #expect(rig.probe.lines.withLock { $0 }.first?.contains("answering turn msg-1 failed") == true)

        rig.clock.advance(by: .seconds(1))
        await rig.runner.waitUntilIdle()
        #expect(try await rig.roles() == [.user, .tool, .assistant])
        rig.runner.finish()
        await rig.tasks.quiescent()
    }

    /// Fails if the wait before a retry does not double, grows past 30 s, or does not start
    /// again at 1 s after a step succeeded.
    @Test func theWaitDoublesUpToThirtySecondsAndStartsAgainAfterASuccess() async throws {
        let rig = try Rig([.lookup: Array(repeating: true, count: 7)])
        try await rig.submit(1)
        rig.runner.start(on: rig.tasks)
        let waits: [Duration] = [
            .seconds(1), .seconds(2), .seconds(4), .seconds(8), .seconds(16), .seconds(30), .seconds(30),
        ]
        for (index, wait) in waits.enumerated() {
            #expect(await rig.clock.waitForSleeps(after: index))
            #expect(await rig.nextStep() == .slept)
            #expect(rig.probe.sleeps.withLock { $0 } == Array(waits.prefix(index + 1)))
            #expect(try await rig.roles() == [.user])
            rig.clock.advance(by: wait)
        }
        await rig.runner.waitUntilIdle()
        #expect(try await rig.roles() == [.user, .tool, .assistant])
        rig.expectLogClean(waits.count)

        // A new failure after the success waits 1 s again.
        rig.probe.script.withLock { $0[.lookup] = [true] }
        try await rig.submit(2)
        rig.runner.wake()
        #expect(await rig.clock.waitForSleeps(after: waits.count))
        #expect(rig.probe.sleeps.withLock { $0 } == waits + [.seconds(1)])
        rig.clock.advance(by: .seconds(1))
        await rig.runner.waitUntilIdle()
        #expect(try await rig.roles() == [.user, .tool, .assistant, .user, .tool, .assistant])
        rig.runner.finish()
        await rig.tasks.quiescent()
    }

    /// Fails if a wake-up (a new message) does not end the wait before a retry: both turns are
    /// answered here without the clock moving.
    @Test func aWakeUpEndsTheWaitEarly() async throws {
        let rig = try Rig([.lookup: [true]])
        try await rig.submit(1)
        rig.runner.start(on: rig.tasks)
        #expect(await rig.nextStep() == .slept)

        try await rig.submit(2)
        rig.runner.wake()
        await rig.runner.waitUntilIdle()
        #expect(try await rig.roles() == [.user, .user, .tool, .assistant, .tool, .assistant])
        #expect(rig.probe.sleeps.withLock { $0 } == [.seconds(1)], "the clock never moved")
        #expect(rig.clock.sleeperCount == 0, "the wait ended")
        rig.runner.finish()
        await rig.tasks.quiescent()
    }

    /// How the runner is stopped.
    enum Stop: CaseIterable, Sendable {
        /// ``AgentTurnRunner/finish()`` alone.
        case finish
        /// The task cancelled alone.
        case cancel
        /// Both, as the service's shutdown does.
        case shutdown
    }

    /// Fails if a stop during the wait before a retry leaves the task waiting for the clock
    /// (the service's shutdown would hang until its deadline), or if the turn does not stay
    /// pending.
    @Test(arguments: Stop.allCases)
    func aStopDuringTheWaitEndsTheTask(_ stop: Stop) async throws {
        let rig = try Rig()
        rig.probe.failingAlways.withLock { $0 = true }
        try await rig.submit(1)
        rig.runner.start(on: rig.tasks)
        #expect(await rig.nextStep() == .slept)
        #expect(rig.tasks.count == 1)

        switch stop {
        case .finish:
            rig.runner.finish()
            await rig.tasks.quiescent()
        case .cancel:
            let task = try #require(rig.tasks.task(named: "agent turns"))
            task.cancel()
            await task.value
        case .shutdown:
            rig.runner.finish()
            // The deadline is on a clock of its own that never moves: the task must end by itself.
            let late = await rig.tasks.shutdown(within: .seconds(5)) { try await ManualClock().sleep(for: $0) }
            #expect(late.isEmpty)
        }
        #expect(rig.tasks.count == 0)
        #expect(rig.clock.sleeperCount == 0, "the wait was cancelled")
        await rig.runner.waitUntilIdle()  // a stopped runner is idle
        rig.probe.failingAlways.withLock { $0 = false }
        #expect(try await rig.store.pendingTurnCount() == 1, "the turn stays for the next start")
        #expect(try await rig.roles() == [.user])
    }
}
