import Testing

@testable import SybilServer

@Suite("Broadcast", .timeLimit(.minutes(2)))
struct BroadcastTests {
    @Test func aSlowSubscriberGetsWhatFitsWithoutAGapThenItsSubscriptionEnds() async {
        let broadcast = Broadcast<Int>(bufferLimit: 3)
        let slow = broadcast.subscribe()
        let other = broadcast.subscribe()
        for value in 1...5 {
            broadcast.publish(value)
            if value <= 3 { #expect(await other.next() == [value]) }
        }
        #expect(await slow.next() == [1, 2, 3], "the oldest values, in order: the client replays from 3")
        #expect(await slow.next() == nil)
        // A subscriber that kept up is not ended by another's overflow.
        #expect(await other.next() == [4, 5])
    }

    @Test func aBurstIsTakenInOneGoAndWhatFitsOfAnOverflowingOneIsKept() async {
        let broadcast = Broadcast<Int>(bufferLimit: 4)
        let subscription = broadcast.subscribe()
        broadcast.publish(contentsOf: [1, 2])
        broadcast.publish(3)
        #expect(await subscription.next() == [1, 2, 3], "everything queued since the last take")
        broadcast.publish(contentsOf: [4, 5, 6, 7, 8])
        #expect(await subscription.next() == [4, 5, 6, 7])
        #expect(await subscription.next() == nil)
        broadcast.publish(9)
        #expect(await subscription.next() == nil, "an ended subscription stays ended")
    }

    @Test func aSubscriberTakesABurstWholeWhetherItWaitedOrNot() async {
        let broadcast = Broadcast<Int>()
        let subscription = broadcast.subscribe()
        let waiting = Task { await subscription.next() }
        // Waiting already or not yet, it takes the burst whole.
        broadcast.publish(contentsOf: [1, 2])
        #expect(await waiting.value == [1, 2])
    }

    @Test func aCancelledWaitEndsTheSubscriptionAndLaterValuesGoNowhere() async {
        let broadcast = Broadcast<Int>()
        let kept = broadcast.subscribe()
        let cancelled = broadcast.subscribe()
        let waiting = Task { await cancelled.next() }
        waiting.cancel()
        #expect(await waiting.value == nil)
        #expect(await cancelled.next() == nil)
        broadcast.publish(1)
        #expect(await kept.next() == [1])
        #expect(broadcast.subscriberCount == 1)
    }

    @Test func droppingASubscriptionUnsubscribes() {
        let broadcast = Broadcast<Int>()
        var subscription: Broadcast<Int>.Subscription? = broadcast.subscribe()
        #expect(broadcast.subscriberCount == 1)
        withExtendedLifetime(subscription) {}
        subscription = nil
        #expect(broadcast.subscriberCount == 0)
    }
}
