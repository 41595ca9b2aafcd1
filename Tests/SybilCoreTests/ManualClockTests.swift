import SybilTesting
import Testing

@Suite("Manual clock", .timeLimit(.minutes(2)))
struct ManualClockTests {
    @Test func startsAtZeroAndAdvancesOnlyWhenTold() {
        let clock = ManualClock()
        let start = clock.now
        #expect(clock.now == start)
        clock.advance(by: .milliseconds(1_500))
        #expect(start.duration(to: clock.now) == .milliseconds(1_500))
    }

    @Test func sleeperWakesExactlyAtItsDeadline() async throws {
        let clock = ManualClock()
        let task = Task { try await clock.sleep(for: .seconds(10)) }
        #expect(await clock.waitForSleepers(count: 1))
        clock.advance(by: .milliseconds(9_999))
        #expect(clock.sleeperCount == 1, "1 ms before the deadline it still sleeps")
        clock.advance(by: .milliseconds(1))
        try await task.value
        #expect(clock.sleeperCount == 0)
    }

    @Test func pastDeadlineReturnsAtOnce() async throws {
        let clock = ManualClock()
        clock.advance(by: .seconds(5))
        try await clock.sleep(until: clock.now.advanced(by: .seconds(-1)))
        #expect(clock.sleeperCount == 0)
    }

    @Test func cancellationWakesASleeperWithCancellationError() async {
        let clock = ManualClock()
        let task = Task { try await clock.sleep(for: .seconds(60)) }
        #expect(await clock.waitForSleepers(count: 1))
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(clock.sleeperCount == 0)
    }

    @Test func sleepersWakeInDeadlineOrder() async throws {
        let clock = ManualClock()
        let order = OrderLog()
        let late = Task {
            try await clock.sleep(for: .seconds(3))
            await order.append("late")
        }
        #expect(await clock.waitForSleepers(count: 1))
        let early = Task {
            try await clock.sleep(for: .seconds(1))
            await order.append("early")
        }
        #expect(await clock.waitForSleepers(count: 2))
        clock.advance(by: .seconds(1))
        try await early.value
        #expect(await order.entries == ["early"])
        clock.advance(by: .seconds(2))
        try await late.value
        #expect(await order.entries == ["early", "late"])
    }
}

private actor OrderLog {
    private(set) var entries: [String] = []
    func append(_ entry: String) { entries.append(entry) }
}
