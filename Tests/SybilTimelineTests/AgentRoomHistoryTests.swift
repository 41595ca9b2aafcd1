import Foundation
import SybilCore
import SybilTimeline
import SybilWire
import Testing

@Suite("Agent room merged history", .timeLimit(.minutes(2)))
struct AgentRoomHistoryTests {
    typealias F = AgentRoomTimelineFixtures

    /// Decodes each frame and merges it, as the stream does: a frame that does not decode
    /// throws before anything of it is merged.
    private func replay(_ frames: [String], into history: inout AgentRoomHistory) throws {
        for frame in frames {
            guard case .message(let message) = try AgentStreamEvent.decode(frame: frame) else { continue }
            _ = history.applyLive(message)
        }
    }

    @Test func aPageBeforeStreamEventsMergesInCursorOrderWithoutDuplicates() {
        var history = AgentRoomHistory()
        let change = history.applyNewestPage(F.page(Array(11...20), hasMoreBefore: true))
        #expect(F.sequences(change.inserted) == Array(11...20))
        #expect(history.lastMergedCursor == F.cursor(20))
        #expect(history.hasMoreBefore)
        // The stream replays from c-20: 21 and 22, then 22 again from a reconnect.
        _ = history.applyLive(F.message(21))
        _ = history.applyLive(F.message(22))
        let again = history.applyLive(F.message(22))
        #expect(again.inserted.isEmpty)
        #expect(again.duplicates == 1)
        #expect(F.sequences(history.messages) == Array(11...22))
        #expect(history.lastMergedCursor == F.cursor(22))
    }

    @Test func streamEventsBeforeThePageMergeInCursorOrder() {
        var history = AgentRoomHistory()
        _ = history.applyLive(F.message(21))
        _ = history.applyLive(F.message(22))
        #expect(history.lastMergedCursor == F.cursor(22))
        let change = history.applyNewestPage(F.page(Array(13...21), hasMoreBefore: true))
        #expect(F.sequences(change.inserted) == Array(13...20))
        #expect(change.duplicates == 1)
        #expect(F.sequences(history.messages) == Array(13...22))
        #expect(history.lastMergedCursor == F.cursor(22), "an older page never moves the replay point back")
        #expect(history.hasMoreBefore)
    }

    @Test func aReplayOverlappingLiveMessagesKeepsEachOnceAndNoGap() throws {
        var history = AgentRoomHistory()
        _ = history.applyNewestPage(F.page(Array(1...5), hasMoreBefore: false))
        // Live 6 and 7 arrived, the socket dropped after 7, the reconnect replays after c-7 —
        // but the server also re-sends 7 and the live copy of 8 arrives during the replay.
        try replay([6, 7].map { F.frame(F.message($0)) }, into: &history)
        try replay([7, 8, 8, 9].map { F.frame(F.message($0)) }, into: &history)
        #expect(F.sequences(history.messages) == Array(1...9))
        #expect(history.lastMergedCursor == F.cursor(9))
        #expect(!history.hasMoreBefore)
    }

    @Test func aPageWhoseMessagesAreAlreadyMergedChangesNothing() {
        var history = AgentRoomHistory()
        _ = history.applyNewestPage(F.page(Array(1...10), hasMoreBefore: true))
        _ = history.applyLive(F.message(11))
        let before = history.messages
        let change = history.applyNewestPage(F.page(Array(3...10), hasMoreBefore: true))
        #expect(change.inserted.isEmpty)
        #expect(change.updated.isEmpty)
        #expect(change.duplicates == 8)
        #expect(!change.changedMessages)
        #expect(history.messages == before)
        #expect(history.lastMergedCursor == F.cursor(11))
        #expect(history.hasMoreBefore, "the page did not reach the bottom: it says nothing about it")
    }

    @Test func aMalformedReplayIsRejectedWithoutLosingTheMergedHistory() throws {
        var history = AgentRoomHistory()
        _ = history.applyNewestPage(F.page(Array(1...5), hasMoreBefore: false))
        let good = F.frame(F.message(6))
        // 7's cursor is not a cursor; 8 never gets merged because the connection ends at 7.
        let bad = good.replacingOccurrences(of: "msg-6", with: "msg-7").replacingOccurrences(
            of: "c-000000006", with: "c 7")
        #expect(throws: JSONError.self) { try replay([good, bad, F.frame(F.message(8))], into: &history) }
        #expect(F.sequences(history.messages) == Array(1...6))
        #expect(history.lastMergedCursor == F.cursor(6), "the replay resumes after the last good frame")
        // An unknown member is refused the same way, before merging.
        let extra = F.frame(F.message(7)).replacingOccurrences(of: #""text""#, with: #""color":"red","text""#)
        #expect(throws: JSONError.self) { try replay([extra], into: &history) }
        #expect(F.sequences(history.messages) == Array(1...6))
    }

    @Test func olderPagesPrependAndAStalePageIsDropped() throws {
        var history = AgentRoomHistory()
        _ = history.applyNewestPage(F.page(Array(21...30), hasMoreBefore: true))
        let prepended = history.applyOlderPage(F.page(Array(11...20), hasMoreBefore: true), before: F.cursor(21))
        let change = try #require(prepended)
        #expect(F.sequences(change.inserted) == Array(11...20))
        #expect(history.oldestCursor == F.cursor(11))
        #expect(history.hasMoreBefore)
        #expect(history.lastMergedCursor == F.cursor(30))
        // The same request answered twice: its `before` is no longer the oldest cursor.
        #expect(history.applyOlderPage(F.page(Array(11...20), hasMoreBefore: true), before: F.cursor(21)) == nil)
        let lastPrepended = history.applyOlderPage(F.page(Array(1...10), hasMoreBefore: false), before: F.cursor(11))
        let last = try #require(lastPrepended)
        #expect(last.inserted.count == 10)
        #expect(!history.hasMoreBefore)
        #expect(F.sequences(history.messages) == Array(1...30))
    }

    @Test func aNewestPageThatCannotReachBackStartsAfreshInsteadOfLeavingAHole() {
        var history = AgentRoomHistory()
        _ = history.applyNewestPage(F.page(Array(1...10), hasMoreBefore: false))
        // Long in the background: 11…59 were never merged; the newest page holds 60…69.
        let change = history.applyNewestPage(F.page(Array(60...69), hasMoreBefore: true))
        #expect(change.droppedOlder == 10)
        #expect(F.sequences(history.messages) == Array(60...69))
        #expect(history.hasMoreBefore)
        #expect(history.lastMergedCursor == F.cursor(69))
        // One that reaches back exactly to the replay point connects.
        var joined = AgentRoomHistory()
        _ = joined.applyNewestPage(F.page(Array(1...10), hasMoreBefore: false))
        let connected = joined.applyNewestPage(F.page(Array(10...19), hasMoreBefore: true))
        #expect(connected.droppedOlder == 0)
        #expect(F.sequences(joined.messages) == Array(1...19))
        #expect(!joined.hasMoreBefore)
    }

    @Test func anIdOrCursorTakenByAnotherMessageIsAConflictNotAMerge() {
        var history = AgentRoomHistory()
        _ = history.applyNewestPage(F.page([1, 2], hasMoreBefore: false))
        var moved = F.message(2)
        moved.cursor = F.cursor(3)
        var impostor = F.message(9)
        impostor.cursor = F.cursor(1)
        let change = history.applyLive([moved, impostor])
        #expect(change.conflicts.count == 2)
        #expect(change.inserted.isEmpty)
        #expect(F.sequences(history.messages) == [1, 2])
        var edited = F.message(2)
        edited.text = "edited"
        let update = history.applyLive(edited)
        #expect(update.updated == [edited])
        #expect(history.message(withId: "msg-2")?.text == "edited")
    }

    @Test func visibleAndUnreadCountsFollowInsertionsAnywhere() {
        var history = AgentRoomHistory()
        _ = history.applyNewestPage(
            AgentRoomPage(
                messages: [F.message(10, role: .user), F.tool(11), F.message(12)], nextCursor: F.cursor(12),
                hasMoreBefore: true))
        _ = history.applyLive([F.tool(13), F.message(14), F.message(15, visibility: .internal)])
        #expect(history.visibleCount == 3)
        #expect(history.unreadCount(after: nil) == 2)
        #expect(history.unreadCount(after: F.cursor(12)) == 1)
        #expect(history.unreadCount(after: F.cursor(14)) == 0)
        #expect(history.newestVisible?.messageId == "msg-14")
        _ = history.applyOlderPage(
            AgentRoomPage(messages: [F.message(8), F.tool(9)], nextCursor: F.cursor(9), hasMoreBefore: false),
            before: F.cursor(10))
        #expect(history.visibleCount == 4)
        #expect(history.unreadCount(after: nil) == 3)
        #expect(history.index(ofVisible: 0) == 0)
        #expect(history.index(ofVisible: 1) == 2)
        #expect(history.index(ofVisible: 2) == 4)
        #expect(history.index(ofVisible: 3) == 6)
        // A message the server turns internal leaves the visible count.
        _ = history.applyLive(F.message(14, visibility: .internal))
        #expect(history.visibleCount == 3)
        #expect(history.unreadCount(after: F.cursor(12)) == 0)
    }
}
