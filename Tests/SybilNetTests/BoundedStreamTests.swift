import SybilCore
import SybilNet
import Testing

/// `BoundedStream.makeFlattening`: the elements of every batch in order, errors after what came
/// before them, and a dropped stream stopping its producer. (The byte bound holding a producer
/// back is pinned end to end by `HostileServerTests`' reply nobody reads.)
@Suite("Bounded stream", .timeLimit(.minutes(2)))
struct BoundedStreamTests {
    private struct Failure: Error, Equatable {}

    @Test func aFlatteningStreamHandsOutEveryElementOfEveryBatchInOrderSkippingEmptyBatches() async throws {
        let stream = BoundedStream.makeFlattening { (yield: BoundedYield<[String]>) in
            _ = await yield(["a", "b"])
            _ = await yield([])
            _ = await yield(["c"])
            _ = await yield(["d", "e", "f"])
        }
        var seen: [String] = []
        for try await element in stream { seen.append(element) }
        #expect(seen == ["a", "b", "c", "d", "e", "f"])
    }

    @Test func anErrorComesAfterTheElementsYieldedBeforeIt() async {
        let stream = BoundedStream.makeFlattening { (yield: BoundedYield<[String]>) in
            _ = await yield(["a", "b"])
            throw Failure()
        }
        var seen: [String] = []
        var failure: (any Error)?
        do {
            for try await element in stream { seen.append(element) }
        } catch {
            failure = error
        }
        #expect(seen == ["a", "b"])
        #expect(failure as? Failure == Failure())
    }

    @Test func droppingTheStreamStopsItsProducer() async {
        let stopped = AsyncStream<Bool>.makeStream()
        var stream: AsyncThrowingStream<String, any Error>? = BoundedStream.makeFlattening(limit: 4) {
            (yield: BoundedYield<[String]>) in
            // Runs until the stream is gone: a yield returns false, or the task is cancelled.
            while await yield(["abcd"]) {}
            stopped.continuation.yield(true)
            stopped.continuation.finish()
        }
        #expect(stream != nil)
        stream = nil
        var signals = stopped.stream.makeAsyncIterator()
        #expect(await signals.next() == true)
    }
}
