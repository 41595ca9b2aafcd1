import Testing

@testable import SybilServer

@Suite("Chat stream registry rules", .timeLimit(.minutes(2)))
struct ChatStreamTableTests {
    private let frame = #"{"error":{"message":"too large"}}"#

    private func table(streams: Int = 3, bytes: Int = 100, gone: Int = 8) -> ChatStreamTable {
        ChatStreamTable(
            limits: .init(
                maximumBytes: bytes, maximumStreams: streams, retention: .seconds(300), rememberedGoneIds: gone))
    }

    private func sequences(_ read: ChatStreamTable.Read) -> [Int64] {
        guard case .events(let events, _) = read else { return [] }
        return events.map(\.sequence)
    }

    @Test func eventsAreNumberedFromOneAndReadAfterAnyId() {
        var table = table()
        #expect(table.open("s", now: .zero) == true)
        for text in ["a", "b", "c"] { _ = table.append("s", data: text, now: .zero, overLimitFrame: frame) }
        #expect(sequences(table.read("s", after: 0, now: .zero)) == [1, 2, 3])
        #expect(sequences(table.read("s", after: 2, now: .zero)) == [3])
        #expect(table.read("s", after: 3, now: .zero) == .events([], finished: false))
        #expect(table.read("s", after: 4, now: .zero) == .beyondEnd(newest: 3))
        table.finish("s", now: .zero)
        #expect(table.read("s", after: 3, now: .zero) == .events([], finished: true))
        #expect(table.append("s", data: "late", now: .zero, overLimitFrame: frame) == .closed)
    }

    @Test func unknownIdsAreNotFound() {
        var table = table()
        #expect(table.read("nope", after: 0, now: .zero) == .notFound)
        #expect(table.append("nope", data: "x", now: .zero, overLimitFrame: frame) == .closed)
    }

    @Test func theByteCapEndsTheStreamWithTheErrorFrameAtTheBoundary() {
        var table = table(bytes: 10)
        #expect(table.open("s", now: .zero) == true)
        #expect(table.append("s", data: "12345", now: .zero, overLimitFrame: frame) == .stored(1))
        // 10 bytes with the type: at the cap.
        #expect(table.append("s", data: "12", type: "err", now: .zero, overLimitFrame: frame) == .stored(2))
        #expect(table.append("s", data: "x", now: .seconds(1), overLimitFrame: frame) == .overLimit)  // 11: over
        guard case .events(let events, let finished) = table.read("s", after: 0, now: .seconds(1)) else {
            Issue.record("expected events")
            return
        }
        #expect(finished)
        #expect(events.last == .init(sequence: 3, data: frame, type: "error"))
        #expect(table.append("s", data: "y", now: .seconds(1), overLimitFrame: frame) == .closed)
    }

    @Test func allStreamsTogetherStayWithinTheTotalOldestFinishedMakingRoomFirst() {
        var table = ChatStreamTable(
            limits: .init(maximumBytes: 10, maximumTotalBytes: 20, maximumStreams: 8, retention: .seconds(300)))
        for id in ["old", "newer"] {
            #expect(table.open(id, now: .zero) == true)
            #expect(table.append(id, data: "12345678", now: .zero, overLimitFrame: frame) == .stored(1))
        }
        table.finish("newer", now: .seconds(1))
        table.finish("old", now: .seconds(2))  // finished later, opened first
        #expect(table.open("live", now: .seconds(3)) == true)
        #expect(table.append("live", data: "1234", now: .seconds(3), overLimitFrame: frame) == .stored(1))
        #expect(table.totalBytes == 20, "at the total: nothing had to go")
        #expect(table.append("live", data: "1", now: .seconds(3), overLimitFrame: frame) == .stored(2))
        let read1 = table.read("newer", after: 0, now: .seconds(3))
        #expect(read1 == .expired, "the first to finish made room")
        let read2 = table.read("old", after: 0, now: .seconds(3))
        #expect(sequences(read2) == [1])
        #expect(table.totalBytes == 13)
        // A running stream is never evicted: with none finished left, the append ends the stream.
        #expect(table.open("other", now: .seconds(4)) == true)
        #expect(table.append("other", data: "12345678", now: .seconds(4), overLimitFrame: frame) == .stored(1))
        let read3 = table.read("old", after: 0, now: .seconds(4))
        #expect(read3 == .expired)
        #expect(table.totalBytes == 13)
        #expect(table.open("third", now: .seconds(4)) == true)
        #expect(table.append("third", data: "1234567", now: .seconds(4), overLimitFrame: frame) == .stored(1))
        #expect(table.append("third", data: "1", now: .seconds(4), overLimitFrame: frame) == .overLimit)  // 21
        let read4 = table.read("live", after: 0, now: .seconds(4))
        #expect(sequences(read4) == [1, 2], "the running stream kept all")
    }

    @Test func anAppendOverItsOwnCapEvictsNobodyAndAReopenedIdStartsEmpty() {
        var table = ChatStreamTable(
            limits: .init(maximumBytes: 10, maximumTotalBytes: 12, maximumStreams: 8, retention: .seconds(300)))
        #expect(table.open("done", now: .zero) == true)
        #expect(table.append("done", data: "123456", now: .zero, overLimitFrame: frame) == .stored(1))
        table.finish("done", now: .zero)
        #expect(table.open("big", now: .zero) == true)
        #expect(table.append("big", data: "123456", now: .zero, overLimitFrame: frame) == .stored(1))
        #expect(table.append("big", data: "12345", now: .zero, overLimitFrame: frame) == .overLimit)  // 11 > 10
        let kept = table.read("done", after: 0, now: .zero)
        #expect(sequences(kept) == [1], "the finished stream was not dropped for an append that failed anyway")
        #expect(table.totalBytes == 12)
        #expect(table.open("big", now: .zero) == true)
        #expect(table.totalBytes == 6, "the old stream's bytes left the total with it")
    }

    @Test func aFinishedStreamIsKeptForTheRetentionAndThenExpires() {
        var table = table()
        #expect(table.open("s", now: .zero) == true)
        table.finish("s", now: .seconds(10))
        #expect(sequences(table.read("s", after: 0, now: .seconds(310))) == [])
        #expect(table.read("s", after: 0, now: .seconds(310)) == .events([], finished: true))  // exactly 300 s
        #expect(table.read("s", after: 0, now: .seconds(310) + .milliseconds(1)) == .expired)
        #expect(table.count == 0)
    }

    @Test func aRunningStreamNeverExpires() {
        var table = table()
        #expect(table.open("s", now: .zero) == true)
        #expect(table.read("s", after: 0, now: .seconds(100_000)) == .events([], finished: false))
    }

    @Test func whenFullTheOldestFinishedStreamMakesRoom() {
        var table = table(streams: 3)
        for id in ["a", "b", "c"] { #expect(table.open(id, now: .zero) == true) }
        table.finish("c", now: .seconds(1))
        table.finish("b", now: .seconds(2))
        #expect(table.open("d", now: .seconds(3)) == true)
        #expect(table.count == 3)
        #expect(table.read("c", after: 0, now: .seconds(3)) == .expired, "finished first, evicted first")
        #expect(table.read("b", after: 0, now: .seconds(3)) == .events([], finished: true))
    }

    @Test func whenEveryStreamRunsANewOneIsRefused() {
        var table = table(streams: 2)
        #expect(table.open("a", now: .zero) == true)
        #expect(table.open("b", now: .zero) == true)  // 2: at the cap
        #expect(table.open("c", now: .zero) == false)  // 3: over
        #expect(table.read("c", after: 0, now: .zero) == .notFound)
        table.finish("a", now: .zero)
        #expect(table.open("c", now: .zero) == true)
    }

    @Test func goneIdsAreRememberedUpToTheirBound() {
        var table = table(streams: 1, gone: 2)
        for id in ["a", "b", "c", "d"] {
            #expect(table.open(id, now: .zero) == true)
            table.finish(id, now: .zero)
        }
        #expect(table.read("c", after: 0, now: .zero) == .expired)
        #expect(table.read("b", after: 0, now: .zero) == .expired)
        #expect(table.read("a", after: 0, now: .zero) == .notFound, "only the last two gone ids are remembered")
    }

    @Test func readersHaveNewsWhenEventsFinishingOrRemovalHappen() {
        var table = table()
        #expect(table.open("s", now: .zero) == true)
        #expect(!table.hasNews("s", after: 0))
        _ = table.append("s", data: "a", now: .zero, overLimitFrame: frame)
        #expect(table.hasNews("s", after: 0))
        #expect(!table.hasNews("s", after: 1))
        table.finish("s", now: .zero)
        #expect(table.hasNews("s", after: 1))
        #expect(table.hasNews("gone", after: 0))
    }
}
