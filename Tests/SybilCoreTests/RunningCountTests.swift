import SybilCore
import Testing

/// The running count a shutdown waits on: zero at once when nothing runs, a wait that ends at
/// the last decrement or when its task is cancelled, and a bounded wait that says whether
/// everything ended.
@Suite("Running count", .timeLimit(.minutes(1)))
struct RunningCountTests {
    @Test func nothingRunningIsZeroAtOnce() async {
        let count = RunningCount()
        await count.zero()
        #expect(count.value == 0)
        #expect(await count.zero(within: .seconds(3600)) { _ in try await Task.sleep(for: .seconds(3600)) })
    }

    @Test func theWaitEndsAtTheLastDecrementOnly() async {
        let count = RunningCount()
        count.increment()
        count.increment()
        let waiting = Task {
            await count.zero()
            return count.value
        }
        count.decrement()
        #expect(count.value == 1)
        count.decrement()
        #expect(await waiting.value == 0)
    }

    @Test func aCancelledWaitReturnsWhileWorkStillRuns() async {
        let count = RunningCount()
        count.increment()
        let waiting = Task { await count.zero() }
        waiting.cancel()
        await waiting.value
        #expect(count.value == 1)
    }

    @Test func aBoundedWaitSaysWhetherEverythingEnded() async {
        let count = RunningCount()
        count.increment()
        // The limit passes at once: the work is still running.
        #expect(await count.zero(within: .zero) { _ in } == false)
        let waiting = Task { await count.zero(within: .seconds(3600)) { try await Task.sleep(for: $0) } }
        count.decrement()
        #expect(await waiting.value)
    }

    @Test func moreDecrementsThanIncrementsStayAtZero() async {
        let count = RunningCount()
        count.decrement()
        #expect(count.value == 0)
        count.increment()
        #expect(count.value == 1)
    }
}
