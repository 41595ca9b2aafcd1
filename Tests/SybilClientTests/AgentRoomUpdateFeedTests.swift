import SybilCore
import Synchronization
import Testing

@testable import SybilClient

/// The room model's feed of stream updates: the rules of the bounded `AsyncStream` it replaces
/// (oldest kept, refused when full, a reader that stops ends it), and its own bound on memory.
@Suite("Agent room update feed")
struct AgentRoomUpdateFeedTests {
    /// A distinct update per number.
    private static func update(_ number: Int) -> AgentRoomStreamUpdate {
        .disconnected(.transport("\(number)"), retryIn: .zero)
    }

    @Test func updatesComeInOrderAndOneOverTheLimitIsRefused() async {
        let feed = AgentRoomUpdateFeed(limit: 3)
        let results = (0..<4).map { feed.writer.yield(Self.update($0)) }
        #expect(results == [.enqueued, .enqueued, .enqueued, .dropped])
        var taken: [AgentRoomStreamUpdate] = []
        for _ in 0..<3 { if let update = await feed.next() { taken.append(update) } }
        #expect(taken == (0..<3).map(Self.update))
        #expect(feed.writer.yield(Self.update(9)) == .enqueued, "room again once taken")
    }

    @Test func aFinishedFeedGivesWhatIsQueuedThenNil() async {
        let feed = AgentRoomUpdateFeed(limit: 4)
        feed.writer.yield(Self.update(1))
        feed.writer.finish()
        #expect(feed.writer.yield(Self.update(2)) == .terminated)
        #expect(await feed.next() == Self.update(1))
        #expect(await feed.next() == nil)
        #expect(await feed.next() == nil)
    }

    @Test func aWaitingReaderIsHandedTheNextUpdate() async {
        let feed = AgentRoomUpdateFeed(limit: 4)
        let reader = Task { await feed.next() }
        // The reader may not be waiting yet: either way the update reaches it.
        feed.writer.yield(Self.update(7))
        #expect(await reader.value == Self.update(7))
    }

    @Test func cancellingTheReaderEndsTheFeedAndRunsTheHandlerOnce() async {
        let feed = AgentRoomUpdateFeed(limit: 4)
        let ended = Locked(0)
        feed.writer.onTermination { ended.withLock { $0 += 1 } }
        feed.writer.yield(Self.update(1))
        let reader = Task {
            _ = await feed.next()  // the queued one
            return await feed.next()
        }
        reader.cancel()
        #expect(await reader.value == nil)
        #expect(feed.writer.yield(Self.update(2)) == .terminated)
        feed.cancel()
        #expect(ended.withLock { $0 } == 1)
        // A handler set after the end runs at once.
        let late = Locked(false)
        feed.writer.onTermination { late.withLock { $0 = true } }
        #expect(late.withLock { $0 })
    }

    @Test func droppingTheFeedEndsItForTheWriter() {
        var feed: AgentRoomUpdateFeed? = AgentRoomUpdateFeed(limit: 4)
        let writer = feed!.writer
        let ended = Locked(false)
        writer.onTermination { ended.withLock { $0 = true } }
        feed = nil
        #expect(ended.withLock { $0 })
        #expect(writer.yield(Self.update(1)) == .terminated)
    }

    /// A reader that stays one update behind never empties the queue; what it took is still
    /// dropped, so the feed holds about twice its limit at most, not every update ever sent.
    @Test func aReaderThatStaysBehindDoesNotKeepWhatItTook() async {
        let limit = 100
        let feed = AgentRoomUpdateFeed(limit: limit)
        feed.writer.yield(Self.update(0))
        var mostHeld = 0
        var inOrder = true
        for number in 1...10_000 {
            #expect(feed.writer.yield(Self.update(number)) == .enqueued)
            if await feed.next() != Self.update(number - 1) { inOrder = false }
            mostHeld = max(mostHeld, feed.heldCount)
        }
        #expect(inOrder)
        #expect(mostHeld <= max(2 * limit, limit + 63), "held \(mostHeld) updates")
    }
}
