import Testing

@testable import SybilHTTP

/// `SocketInbox` as the socket connection uses it, without a socket: the bound on what a peer
/// can make a connection hold, in bytes and in memory, however its bytes are segmented.
@Suite("SocketInbox")
struct SocketInboxTests {
    static let limit = 256 * 1024
    static let chunkSize = 64 * 1024

    static func inbox() -> SocketInbox {
        SocketInbox(limit: limit, resumeLevel: limit / 2, chunkSize: chunkSize)
    }

    /// Keeps one read as the connection does: a large one as it came, a small one copied.
    static func deliver(_ read: [UInt8], into inbox: inout SocketInbox) -> Bool {
        inbox.keepsWhole(read.count) ? inbox.keep(read) : inbox.keep(copying: read[...])
    }

    @Test func aPeerTricklingSingleBytesFillsTheInboxWithFewChunks() {
        var inbox = Self.inbox()
        var fed = 0
        while !Self.deliver([UInt8(truncatingIfNeeded: fed)], into: &inbox) { fed += 1 }
        fed += 1
        // Paused at the bound in bytes, and the memory held stays near it: one chunk per read
        // would be 262,144 chunks of ~64 bytes each (16 MiB).
        #expect(fed == Self.limit)
        #expect(inbox.bytes == Self.limit)
        #expect(inbox.chunkCount == Self.limit / Self.chunkSize)
        #expect(inbox.storageBytes < 2 * Self.limit)
        // The bytes come out whole and in order.
        var taken: [UInt8] = []
        while let chunk = inbox.take() { taken += chunk }
        #expect(taken.count == Self.limit)
        #expect(taken.enumerated().allSatisfy { $0.element == UInt8(truncatingIfNeeded: $0.offset) })
    }

    @Test func smallReadsBetweenLargeOnesKeepTheChunkCountBounded() {
        var inbox = Self.inbox()
        let large = [UInt8](repeating: 1, count: Self.chunkSize / 2)
        var paused = false
        while !paused {
            paused = Self.deliver(large, into: &inbox)
            if !paused { paused = Self.deliver([2], into: &inbox) }
        }
        // Each 1-byte read joined the large chunk before it.
        #expect(inbox.chunkCount == (Self.limit + Self.chunkSize / 2 - 1) / (Self.chunkSize / 2))
        #expect(inbox.storageBytes < 2 * (Self.limit + Self.chunkSize))
    }

    @Test func smallReadsAreGatheredUpToTheChunkSizeAndNoFurther() {
        var inbox = Self.inbox()
        let small = [UInt8](repeating: 7, count: Self.chunkSize / 2 - 1)
        #expect(!inbox.keepsWhole(small.count))
        #expect(inbox.keepsWhole(small.count + 1))
        _ = Self.deliver(small, into: &inbox)
        _ = Self.deliver(small, into: &inbox)
        // Exactly the chunk size: still one chunk.
        _ = Self.deliver([7, 7], into: &inbox)
        #expect(inbox.chunkCount == 1)
        #expect(inbox.bytes == Self.chunkSize)
        // One byte more starts a chunk of its own.
        _ = Self.deliver([8], into: &inbox)
        #expect(inbox.chunkCount == 2)
        let gathered = inbox.take()
        let alone = inbox.take()
        let none = inbox.take()
        #expect(gathered?.count == Self.chunkSize)
        #expect(alone?.count == 1 && alone?.first == 8)
        #expect(none?.count == nil)
        #expect(inbox.isEmpty)
    }

    @Test func aTakenChunkIsNotGrownAfterwards() {
        var inbox = Self.inbox()
        _ = Self.deliver([1, 2, 3], into: &inbox)
        let first = inbox.take()
        _ = Self.deliver([4], into: &inbox)
        let second = inbox.take()
        #expect(first == [1, 2, 3])
        #expect(second == [4])
    }

    @Test func pausesAtTheLimitAndResumesOnlyAtTheResumeLevel() {
        var inbox = Self.inbox()
        let large = [UInt8](repeating: 0, count: Self.chunkSize)
        var pauses: [Bool] = []
        for _ in 0..<3 { pauses.append(Self.deliver(large, into: &inbox)) }
        // One byte short of the limit, then the limit itself.
        pauses.append(Self.deliver([UInt8](repeating: 0, count: Self.chunkSize - 1), into: &inbox))
        pauses.append(Self.deliver([0], into: &inbox))
        #expect(pauses == [false, false, false, false, true])
        #expect(inbox.bytes == Self.limit)
        // Taken down to above the resume level: still paused.
        _ = inbox.take()
        #expect(inbox.bytes == Self.limit / 2 + Self.chunkSize)
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
}
