import SybilTimeline
import SybilWire
import Testing

@Suite("Shared read gate", .timeLimit(.minutes(2)))
struct SharedReadGateTests {
    typealias F = AgentRoomTimelineFixtures

    private func selectedGate(newest: Int) -> SharedReadGate {
        var gate = SharedReadGate()
        _ = gate.handle(.newestVisible(F.cursor(newest)))
        _ = gate.handle(.selected(true))
        return gate
    }

    @Test func bottomThenAnimationAcks() {
        var gate = selectedGate(newest: 5)
        #expect(gate.handle(.reachedBottom) == nil)
        #expect(gate.handle(.entranceAnimationFinished) == .markRead(F.cursor(5)))
    }

    @Test func animationThenBottomAcks() {
        var gate = selectedGate(newest: 5)
        #expect(gate.handle(.entranceAnimationFinished) == nil)
        #expect(gate.handle(.reachedBottom) == .markRead(F.cursor(5)))
    }

    @Test func eitherAloneNeverAcks() {
        var bottom = selectedGate(newest: 5)
        #expect(bottom.handle(.reachedBottom) == nil)
        #expect(bottom.handle(.reachedBottom) == nil)
        #expect(bottom.handle(.sharedRead(F.cursor(1))) == nil)
        var animation = selectedGate(newest: 5)
        #expect(animation.handle(.entranceAnimationFinished) == nil)
        #expect(animation.handle(.newestVisible(F.cursor(5))) == nil)
        // Leaving the bottom before the animation ends takes the bottom back.
        var left = selectedGate(newest: 5)
        _ = left.handle(.reachedBottom)
        _ = left.handle(.leftBottom)
        #expect(left.handle(.entranceAnimationFinished) == nil)
    }

    @Test func onlyWhileTheRoomIsSelected() {
        var gate = SharedReadGate()
        _ = gate.handle(.newestVisible(F.cursor(5)))
        #expect(gate.handle(.reachedBottom) == nil)
        #expect(gate.handle(.entranceAnimationFinished) == nil, "not selected: no ack")
        // Selecting starts afresh: what happened before does not count.
        #expect(gate.handle(.selected(true)) == nil)
        #expect(gate.handle(.reachedBottom) == nil)
        #expect(gate.handle(.entranceAnimationFinished) == .markRead(F.cursor(5)))
        // Deselected in between: both again.
        _ = gate.handle(.newestVisible(F.cursor(6)))
        _ = gate.handle(.reachedBottom)
        _ = gate.handle(.selected(false))
        #expect(gate.handle(.entranceAnimationFinished) == nil)
    }

    @Test func neverBackwardsAReadPositionFromAnotherDeviceAheadWins() {
        var gate = selectedGate(newest: 5)
        _ = gate.handle(.sharedRead(F.cursor(7)))
        _ = gate.handle(.reachedBottom)
        #expect(gate.handle(.entranceAnimationFinished) == nil, "c-7 is already read elsewhere")
        #expect(gate.handle(.sharedRead(F.cursor(3))) == nil)
        #expect(gate.readCursor == F.cursor(7), "an older position never replaces a newer one")
        var equal = selectedGate(newest: 5)
        _ = equal.handle(.sharedRead(F.cursor(5)))
        _ = equal.handle(.reachedBottom)
        #expect(equal.handle(.entranceAnimationFinished) == nil, "c-5 itself is read")
    }

    @Test func eachCursorIsAckedOnceAndANewerMessageNeedsBothAgain() {
        var gate = selectedGate(newest: 5)
        _ = gate.handle(.reachedBottom)
        #expect(gate.handle(.entranceAnimationFinished) == .markRead(F.cursor(5)))
        #expect(gate.handle(.reachedBottom) == nil)
        #expect(gate.handle(.entranceAnimationFinished) == nil)
        #expect(gate.handle(.newestVisible(F.cursor(6))) == nil)
        #expect(gate.handle(.reachedBottom) == nil)
        #expect(gate.handle(.entranceAnimationFinished) == .markRead(F.cursor(6)))
        // The answer to the post arrives: still nothing more to post.
        #expect(gate.handle(.sharedRead(F.cursor(6))) == nil)
    }

    @Test func aFailedPostMayBeRepeated() {
        var gate = selectedGate(newest: 5)
        _ = gate.handle(.reachedBottom)
        #expect(gate.handle(.entranceAnimationFinished) == .markRead(F.cursor(5)))
        #expect(gate.handle(.markReadFailed(F.cursor(4))) == nil)
        #expect(gate.handle(.reachedBottom) == nil, "not the cursor posted: c-5 stays posted")
        #expect(gate.handle(.markReadFailed(F.cursor(5))) == nil, "not at once: no loop against a failing server")
        #expect(gate.handle(.reachedBottom) == .markRead(F.cursor(5)), "the next event posts it again")
    }
}
