import SybilStore
import Testing

/// An actor on a ``SerialQueueExecutor`` runs its methods on the executor's own queue, one at
/// a time in order, never on the cooperative pool.
@Suite("Serial queue executor", .timeLimit(.minutes(2)))
struct SerialQueueExecutorTests {
    actor Counter {
        let executor = SerialQueueExecutor(label: "test.counter")
        nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }
        private(set) var values: [Int] = []

        func append(_ value: Int) -> Bool {
            values.append(value)
            return executor.isCurrent
        }
    }

    @Test func actorWorkRunsOnTheQueueInOrder() async throws {
        let counter = Counter()
        #expect(!counter.executor.isCurrent)
        for value in 0..<100 { #expect(await counter.append(value)) }
        #expect(await counter.values == Array(0..<100))
        let other = SerialQueueExecutor(label: "test.other")
        #expect(try await other.run { other.isCurrent })
        #expect(try await other.run { counter.executor.isCurrent } == false)
    }
}
