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
        var stream: BoundedBatchStream<String>? = BoundedStream.makeFlattening(limit: 4) {
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

    @Test func aConsumerCancelledWhileItWaitsStopsTheProducerAndEndsWithCancellation() async {
        let stopped = AsyncStream<Bool>.makeStream()
        let started = AsyncStream<Bool>.makeStream()
        let stream = BoundedStream.makeBatched { (yield: BoundedBatchYield<String>) in
            _ = await yield(["a"], 1)
            started.continuation.yield(true)
            // Waits until the producer's task is cancelled (the consumer went away).
            let (never, _) = AsyncStream<Bool>.makeStream()
            for await _ in never {}
            stopped.continuation.yield(Task.isCancelled)
            stopped.continuation.finish()
        }
        let consumer = Task {
            var seen: [String] = []
            do {
                for try await element in stream { seen.append(element) }
                return (seen, nil as (any Error)?)
            } catch {
                return (seen, error)
            }
        }
        var starts = started.stream.makeAsyncIterator()
        _ = await starts.next()
        consumer.cancel()
        let (seen, failure) = await consumer.value
        #expect(seen == ["a"])
        #expect(failure is CancellationError)
        var signals = stopped.stream.makeAsyncIterator()
        #expect(await signals.next() == true, "the producer's task was cancelled")
    }
}
