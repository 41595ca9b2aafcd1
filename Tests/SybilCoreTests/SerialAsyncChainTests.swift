import SybilCore
import SybilTesting
import Testing

@Suite("Serial async chain", .timeLimit(.minutes(2)))
struct SerialAsyncChainTests {
    /// Records starts and ends of jobs.
    final class Log: Sendable {
        private let entries = Locked<[String]>([])
        func append(_ entry: String) { entries.withLock { $0.append(entry) } }
        var all: [String] { entries.withLock { $0 } }
    }

    @Test func jobsRunInOrderWithoutInterleavingAcrossAwait() async throws {
        let chain = SerialAsyncChain()
        let clock = ManualClock()
        let log = Log()
        let first = Task {
            try await chain.run {
                log.append("first start")
                try await clock.sleep(for: .seconds(5))
                log.append("first end")
                return 1
            }
        }
        #expect(await clock.waitForSleepers(count: 1))
        let second = await chain.submit {
            log.append("second start")
            return 2
        }
        #expect(log.all == ["first start"], "the second job waits while the first is suspended")
        clock.advance(by: .seconds(5))
        #expect(try await first.value == 1)
        #expect(try await second.value == 2)
        #expect(log.all == ["first start", "first end", "second start"])
    }

    @Test func aFailingJobDoesNotStopTheChain() async throws {
        struct Boom: Error {}
        let chain = SerialAsyncChain()
        await #expect(throws: Boom.self) { try await chain.run { () async throws -> Int in throw Boom() } }
        #expect(try await chain.run { 7 } == 7)
    }
}

extension SerialAsyncChain {
    /// Runs `run(job)` on the chain's own executor and returns once it has suspended, so the job
    /// is in the chain when this returns.
    fileprivate func submit<Result: Sendable>(
        _ job: @escaping @Sendable () async throws -> Result
    ) -> Task<Result, any Error> {
        Task.immediate { try await self.run(job) }
    }
}
