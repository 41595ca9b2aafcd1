import Testing

@testable import SybilClient

/// The Agent room draft's CPU-heavy work (conversion, hashing, thumbnails) runs off the
/// caller's actor in a detached task; cancelling the task that waits for it (a removed item's
/// step, a closed draft) cancels the work too.
@Suite("Agent attachment work off the caller's actor", .timeLimit(.minutes(1)))
struct AgentAttachmentIOQueueTests {
    @Test func cancellingTheOwnerStopsTheDetachedWork() async {
        let (started, didStart) = AsyncStream<Void>.makeStream()
        // Never yields: the work waits on it until its own task is cancelled.
        let (never, keep) = AsyncStream<Void>.makeStream()
        let owner = Task {
            await AgentAttachmentIOQueue.detached {
                didStart.yield()
                for await _ in never {}
                return Task.isCancelled
            }
        }
        for await _ in started { break }
        owner.cancel()
        #expect(await owner.value, "the work stopped because its own task was cancelled")
        keep.finish()
    }

    @Test func workThatIsNotCancelledRunsToItsEnd() async {
        let value = await AgentAttachmentIOQueue.detached { Task.isCancelled ? -1 : 42 }
        #expect(value == 42)
    }
}
