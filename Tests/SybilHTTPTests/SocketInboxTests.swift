import Testing

@testable import SybilHTTP

/// `SocketInbox` as the socket connection uses it, without a socket: the bound on what a peer
/// can make a connection hold, in bytes and in chunks (the memory each costs beyond its
/// bytes), however its bytes are segmented.
@Suite("SocketInbox", .timeLimit(.minutes(1)))
struct SocketInboxTests {
    static let limit = SocketConnection.inboxLimit
    static let chunkLimit = SocketConnection.inboxChunkLimit

    static func inbox() -> SocketInbox {
        SocketInbox(limit: limit, resumeLevel: SocketConnection.resumeLevel, chunkLimit: chunkLimit)
    }

    @Test func aPeerTricklingSingleBytesPausesTheInboxAtItsChunkBound() {
        var inbox = Self.inbox()
        var kept = 0
        while !inbox.keep([UInt8(truncatingIfNeeded: kept)]) { kept += 1 }
        kept += 1
        // Paused after 4,096 one-byte chunks (about 256 KiB of arrays), not 262,144 (some
        // 16 MiB of arrays for 256 KiB of bytes).
        #expect(kept == Self.chunkLimit)
        #expect(inbox.chunkCount == Self.chunkLimit)
        #expect(inbox.bytes == Self.chunkLimit)
        // The bytes come out whole and in order.
        var taken: [UInt8] = []
        while let chunk = inbox.take() { taken += chunk }
        #expect(taken.count == Self.chunkLimit)
        #expect(taken.enumerated().allSatisfy { $0.element == UInt8(truncatingIfNeeded: $0.offset) })
    }

    @Test func aConsumerThatNeverEmptiesTheInboxDoesNotLeaveItsTakenSlotsBehind() {
        var inbox = Self.inbox()
        _ = inbox.keep([0])
        // A read arrives before each take, so the inbox is never empty: a million reads.
        for index in 1...1_000_000 {
            _ = inbox.keep([UInt8(truncatingIfNeeded: index)])
            let taken = inbox.take()
            if taken != [UInt8(truncatingIfNeeded: index - 1)] {
                Issue.record("read \(index - 1) came out as \(String(describing: taken))")
                break
            }
            if inbox.slots > 2 * SocketInbox.compactionFloor + 2 {
                Issue.record("\(inbox.slots) slots held for one waiting chunk after \(index) reads")
                break
            }
        }
        #expect(inbox.chunkCount == 1)
        #expect(inbox.bytes == 1)
    }

    @Test func theChunkBoundPausesAtItsLimitAndResumesAtHalf() {
        var inbox = Self.inbox()
        for _ in 0..<Self.chunkLimit - 1 { _ = inbox.keep([1]) }
        #expect(!inbox.isPaused)
        let paused = inbox.keep([1])
        #expect(paused)
        // Down to one chunk more than half: still paused, though the bytes are far below the
        // byte bound's resume level.
        while inbox.chunkCount > Self.chunkLimit / 2 + 1 { _ = inbox.take() }
        let early = inbox.resumeIfDrained()
        #expect(!early)
        _ = inbox.take()
        let resumed = inbox.resumeIfDrained()
        #expect(resumed)
        #expect(!inbox.isPaused)
    }

    @Test func pausesAtTheByteLimitAndResumesOnlyAtTheResumeLevel() {
        var inbox = Self.inbox()
        let read = [UInt8](repeating: 0, count: 64 << 10)
        var pauses: [Bool] = []
        for _ in 0..<3 { pauses.append(inbox.keep(read)) }
        // One byte short of the limit, then the limit itself.
        pauses.append(inbox.keep([UInt8](repeating: 0, count: (64 << 10) - 1)))
        pauses.append(inbox.keep([0]))
        #expect(pauses == [false, false, false, false, true])
        #expect(inbox.bytes == Self.limit)
        // Taken down to above the resume level: still paused.
        _ = inbox.take()
        #expect(inbox.bytes == Self.limit / 2 + (64 << 10))
        let early = inbox.resumeIfDrained()
        #expect(!early)
        #expect(inbox.isPaused)
        _ = inbox.take()
        #expect(inbox.bytes == Self.limit / 2)
        let resumed = inbox.resumeIfDrained()
        let again = inbox.resumeIfDrained()
        #expect(resumed)
        #expect(!inbox.isPaused)
        #expect(!again)
    }

    @Test func anEmptyReadIsNotAChunk() {
        var inbox = Self.inbox()
        _ = inbox.keep([])
        #expect(inbox.isEmpty)
        #expect(inbox.chunkCount == 0)
        let none = inbox.take()
        #expect(none == nil)
    }
}
