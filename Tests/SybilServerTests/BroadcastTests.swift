import Testing

@testable import SybilServer

@Suite("Broadcast", .timeLimit(.minutes(2)))
struct BroadcastTests {
    @Test func aSlowSubscriberGetsWhatFitsWithoutAGapThenItsStreamEnds() async {
        let broadcast = Broadcast<Int>(bufferLimit: 3)
        let slow = broadcast.subscribe()
        let other = broadcast.subscribe()
        var otherValues = other.makeAsyncIterator()
        for value in 1...5 {
            broadcast.publish(value)
            if value <= 3 { #expect(await otherValues.next() == value) }
        }
        var received: [Int] = []
        for await value in slow { received.append(value) }
        #expect(received == [1, 2, 3], "the oldest values, in order, then the end: the client replays from 3")
        // A subscriber that kept up is not ended by another's overflow.
        #expect(await otherValues.next() == 4)
        #expect(await otherValues.next() == 5)
    }
}
