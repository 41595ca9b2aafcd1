import Foundation
import SybilCore
import SybilHTTP
import SybilTesting
import Testing

@testable import SybilServer

/// The tracker every service starts its work on: tasks are held until they end, quiescence
/// is a signal, and shutdown cancels, awaits within a deadline on the injected clock and
/// names what did not end.
@Suite("Server: tracked service tasks", .timeLimit(.minutes(2)))
struct ServiceTasksTests {
    /// A gate a task waits at without looking at cancellation (work that will not stop).
    final class Gate: Sendable {
        private let waiters = Locked<[CheckedContinuation<Void, Never>]>([])
        let arrived = ChangeSignal()
        var waiting: Int { waiters.withLock { $0.count } }

        func wait() async {
            await withCheckedContinuation { continuation in
                waiters.withLock { $0.append(continuation) }
                arrived.notify()
            }
        }

        func open() {
            for waiter in waiters.withLock({ list in
                defer { list.removeAll() }
                return list
            }) { waiter.resume() }
        }
    }

    @Test func aTaskIsHeldByNameUntilItEnds() async throws {
        let tasks = ServiceTasks()
        let gate = Gate()
        let task = try #require(tasks.start("run r-1") { await gate.wait() })
        #expect(await gate.arrived.wait { gate.waiting == 1 })
        #expect(tasks.names == ["run r-1"])
        #expect(tasks.task(named: "run r-1") != nil)
        #expect(tasks.task(named: "run r-2") == nil)
        gate.open()
        await task.value
        await tasks.quiescent()
        #expect(tasks.names.isEmpty)
        #expect(tasks.task(named: "run r-1") == nil)
    }

    @Test func quiescenceWaitsForEveryTaskIncludingOneStartedByAnEndingTask() async throws {
        let tasks = ServiceTasks()
        await tasks.quiescent()  // nothing runs: at once
        let first = Gate()
        let second = Gate()
        let ended = Locked<[String]>([])
        tasks.start("first") {
            await first.wait()
            ended.withLock { $0.append("first") }
            // Work that follows from this task starts before it ends.
            tasks.start("second") {
                await second.wait()
                ended.withLock { $0.append("second") }
            }
        }
        #expect(await first.arrived.wait { first.waiting == 1 })
        let quiet = Task {
            await tasks.quiescent()
            return ended.withLock { $0 }
        }
        first.open()
        #expect(await second.arrived.wait { second.waiting == 1 })
        #expect(tasks.names == ["second"])
        second.open()
        #expect(await quiet.value == ["first", "second"], "quiescent only once both ended")
    }

    @Test func shutdownCancelsAwaitsAndRefusesNewWork() async {
        let tasks = ServiceTasks()
        let clock = ManualClock()
        let cancelled = Counter()
        for index in 0..<3 {
            tasks.start("stream \(index)") {
                try? await clock.sleep(for: .seconds(3600))
                if Task.isCancelled { cancelled.increment() }
            }
        }
        #expect(await clock.waitForSleepers(count: 3))
        let unfinished = await tasks.shutdown(within: .seconds(5)) { try await clock.sleep(for: $0) }
        #expect(unfinished.isEmpty)
        #expect(cancelled.value == 3)
        #expect(tasks.names.isEmpty)
        #expect(tasks.isClosed)
        #expect(tasks.start("late") {} == nil, "nothing starts once shutdown began")
        #expect(clock.sleeperCount == 0, "the deadline's sleep ended with the tasks")
    }

    @Test func shutdownGivesUpAtTheDeadlineOnTheInjectedClockAndNamesWhatDidNotEnd() async {
        let tasks = ServiceTasks()
        let clock = ManualClock()
        let stubborn = Gate()
        tasks.start("forward chatcmpl-1") { await stubborn.wait() }
        let run = tasks.start("run r-1") { try? await clock.sleep(for: .seconds(3600)) }
        #expect(await stubborn.arrived.wait { stubborn.waiting == 1 })
        #expect(await clock.waitForSleepers(count: 1))
        let sleeps = clock.sleepsStarted
        let stopping = Task { await tasks.shutdown(within: .seconds(5)) { try await clock.sleep(for: $0) } }
        // The run ends on its cancellation; the shutdown sleeps until its deadline.
        await run?.value
        #expect(await clock.waitForSleeps(after: sleeps))
        #expect(tasks.names == ["forward chatcmpl-1"])
        #expect(clock.sleeperCount == 1)
        clock.advance(by: .seconds(5) - .nanoseconds(1))
        #expect(clock.sleeperCount == 1, "still waiting 1 ns before the deadline")
        clock.advance(by: .nanoseconds(1))
        #expect(await stopping.value == ["forward chatcmpl-1"])
        stubborn.open()
        await tasks.quiescent()
        #expect(tasks.names.isEmpty)
    }

    @Test func tasksRunOnTheExecutorTheyAreGivenWhichStopsOnceTheyEnded() async throws {
        let executor = ServerExecutor(threads: 1)
        let tasks = ServiceTasks(executor: executor)
        let gate = Gate()
        let names = Locked<[String]>([])
        tasks.start("work") {
            names.withLock { $0.append(currentThreadName()) }
            await gate.wait()
            names.withLock { $0.append(currentThreadName()) }
        }
        #expect(await gate.arrived.wait { gate.waiting == 1 })
        #expect(tasks.count == 1)
        gate.open()
        await tasks.quiescent()
        #expect(tasks.count == 0)
        #expect(names.withLock { $0 } == ["sybil-server-0", "sybil-server-0"])
        executor.stop()
        await executor.stopped()
        #expect(executor.runningThreads == 0)
    }
}

/// The name of the thread running the caller (outside an async context's view of it).
private func currentThreadName() -> String {
    Thread.current.name ?? ""
}
