import Testing

@testable import SybilHTTP

/// `SocketInbox` as the socket connection uses it, without a socket: the bound on what a peer
/// can make a connection hold, in bytes and in memory, however its bytes are segmented.
@Suite("SocketInbox")
struct SocketInboxTests {
    static let limit = 256 * 1024
    static let bufferSize = 64 * 1024

    static func inbox() -> SocketInbox {
        SocketInbox(limit: limit, resumeLevel: limit / 2)
    }

    /// A read buffer as the connection's: `bufferSize` bytes, its storage that size or more.
    static func readBuffer() -> [UInt8] {
        [UInt8](repeating: 0, count: bufferSize)
    }

    /// Keeps `read` as the connection does: read into its buffer, then kept from there.
    static func deliver(_ read: [UInt8], into inbox: inout SocketInbox, buffer: inout [UInt8]) -> Bool {
        buffer.replaceSubrange(0..<read.count, with: read)
        return inbox.keep(read.count, of: &buffer, replacement: readBuffer)
    }

    @Test func aPeerTricklingSingleBytesFillsTheInboxWithFewChunks() {
        var inbox = Self.inbox()
        var buffer = Self.readBuffer()
        var fed = 0
        while !Self.deliver([UInt8(truncatingIfNeeded: fed)], into: &inbox, buffer: &buffer) { fed += 1 }
        fed += 1
        // Paused at the bound in bytes, and the memory held stays near it: one chunk per read
        // would be 262,144 arrays of ~64 bytes each (16 MiB).
        #expect(fed == Self.limit)
        #expect(inbox.bytes == Self.limit)
        #expect(inbox.chunkCount == Self.limit / Self.bufferSize)
        #expect(inbox.storageBytes < Self.limit + Self.bufferSize)
        // The bytes come out whole and in order.
        var taken: [UInt8] = []
        while let chunk = inbox.take() { taken += chunk }
        #expect(taken.count == Self.limit)
        #expect(taken.enumerated().allSatisfy { $0.element == UInt8(truncatingIfNeeded: $0.offset) })
    }

    @Test func readsOfEverySizeKeepTheChunksAndTheirStorageBounded() {
        // Sizes from a fixed linear congruential sequence: the same reads every run.
        var seed: UInt64 = 0x5EED
        var inbox = Self.inbox()
        var buffer = Self.readBuffer()
        var sent: [UInt8] = []
        var taken: [UInt8] = []
        for round in 0..<2_000 {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            // Mostly small reads, some up to a whole buffer.
            let size = seed >> 60 == 0 ? Int(seed >> 40) % Self.bufferSize + 1 : Int(seed >> 50) % 300 + 1
            let read = (0..<size).map { UInt8(truncatingIfNeeded: sent.count + $0) }
            sent += read
            if Self.deliver(read, into: &inbox, buffer: &buffer) || round % 97 == 0 {
                while inbox.bytes > Self.limit / 4, let chunk = inbox.take() { taken += chunk }
            }
            // Two chunks in a row hold more than one buffer's worth.
            #expect(inbox.chunkCount <= 2 * inbox.bytes / Self.bufferSize + 1)
            #expect(inbox.storageBytes < 2 * inbox.bytes + 2 * Self.bufferSize)
            #expect(inbox.bytes <= Self.limit + Self.bufferSize)
        }
        while let chunk = inbox.take() { taken += chunk }
        #expect(taken == sent)
    }

    @Test func aReadIsCopiedOntoTheNewestChunkOnlyWhileItFitsItsStorage() {
        var inbox = Self.inbox()
        var buffer = Self.readBuffer()
        _ = Self.deliver([1], into: &inbox, buffer: &buffer)
        // The first read is the buffer itself: the reader got a new one.
        #expect(inbox.chunkCount == 1)
        #expect(inbox.storageBytes >= Self.bufferSize)
        let room = inbox.storageBytes - 1
        // Exactly the room left (in reads no larger than the buffer): still one chunk.
        var left = room
        while left > 0 {
            let read = min(left, Self.bufferSize)
            _ = Self.deliver([UInt8](repeating: 2, count: read), into: &inbox, buffer: &buffer)
            left -= read
        }
        #expect(inbox.chunkCount == 1)
        #expect(inbox.bytes == room + 1)
        // One byte more starts a chunk of its own.
        _ = Self.deliver([3], into: &inbox, buffer: &buffer)
        #expect(inbox.chunkCount == 2)
        let first = inbox.take()
        let second = inbox.take()
        let none = inbox.take()
        #expect(first?.count == room + 1)
        #expect(second?.count == 1 && second?.first == 3)
        #expect(none?.count == nil)
        #expect(inbox.isEmpty)
    }

    @Test func aTakenChunkIsNotWrittenAfterwards() {
        var inbox = Self.inbox()
        var buffer = Self.readBuffer()
        _ = Self.deliver([1, 2, 3], into: &inbox, buffer: &buffer)
        let first = inbox.take()
        _ = Self.deliver([4], into: &inbox, buffer: &buffer)
        let second = inbox.take()
        #expect(first == [1, 2, 3])
        #expect(second == [4])
    }

    @Test func pausesAtTheLimitAndResumesOnlyAtTheResumeLevel() {
        var inbox = Self.inbox()
        var buffer = Self.readBuffer()
        let whole = [UInt8](repeating: 0, count: Self.bufferSize)
        var pauses: [Bool] = []
        for _ in 0..<3 { pauses.append(Self.deliver(whole, into: &inbox, buffer: &buffer)) }
        // One byte short of the limit, then the limit itself.
        pauses.append(Self.deliver([UInt8](repeating: 0, count: Self.bufferSize - 1), into: &inbox, buffer: &buffer))
        pauses.append(Self.deliver([0], into: &inbox, buffer: &buffer))
        #expect(pauses == [false, false, false, false, true])
        #expect(inbox.bytes == Self.limit)
        // Taken down to above the resume level: still paused.
        _ = inbox.take()
        #expect(inbox.bytes == Self.limit / 2 + Self.bufferSize)
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
