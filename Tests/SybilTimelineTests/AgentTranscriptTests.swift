import Foundation
import SybilCore
import SybilTimeline
import SybilWire
import Testing

@Suite("Agent transcript presentation", .timeLimit(.minutes(2)))
struct AgentTranscriptTests {
    typealias F = AgentRoomTimelineFixtures
    let utc = TimeZone(secondsFromGMT: 0)!

    private func ids(_ transcript: AgentTranscript) -> [String] {
        transcript.rows.map {
            switch $0 {
            case .day(let day): "day \(day)"
            case .message(let message): message.messageId
            }
        }
    }

    @Test func theNewMarkerGoesAboveTheFirstPublicReplyAfterTheReadCursor() {
        var history = AgentRoomHistory()
        _ = history.applyNewestPage(
            AgentRoomPage(
                messages: [
                    F.message(1), F.message(2, role: .user), F.tool(3), F.message(4, visibility: .internal),
                    F.message(5), F.message(6),
                ], nextCursor: F.cursor(6), hasMoreBefore: false))
        func marker(_ read: Int?) -> String? {
            AgentTranscript.unreadMarker(
                in: history, readState: AgentReadState(readCursor: read.map(F.cursor), unread: 0))
        }
        #expect(AgentTranscript.unreadMarker(in: history, readState: nil) == nil, "read position unknown")
        #expect(marker(nil) == "msg-1", "nothing read yet")
        #expect(marker(1) == "msg-5", "the user's message, the tool call and the internal one are no replies")
        #expect(marker(4) == "msg-5")
        #expect(marker(5) == "msg-6", "the cursor itself is read")
        #expect(marker(6) == nil, "everything read")
    }

    @Test func toolCallsAndInternalMessagesAreHiddenInLoadedHistoryAndLiveUpdates() {
        var history = AgentRoomHistory()
        _ = history.applyNewestPage(
            AgentRoomPage(
                messages: [F.message(1, role: .user), F.tool(2), F.message(3, role: .system), F.message(4)],
                nextCursor: F.cursor(4), hasMoreBefore: false))
        var transcript = AgentTranscript(timeZone: utc)
        transcript.update(from: history)
        #expect(ids(transcript) == ["day 2026-10-14", "msg-1", "msg-3", "msg-4"])
        _ = history.applyLive([F.tool(5), F.message(6, visibility: .internal), F.message(7)])
        transcript.update(from: history)
        #expect(ids(transcript) == ["day 2026-10-14", "msg-1", "msg-3", "msg-4", "msg-7"])
        #expect(history.messages.count == 7, "hidden messages stay in the merged history")
    }

    @Test func dateSeparatorsFollowCalendarDaysInTheInjectedTimeZone() throws {
        // 21:30 and 22:30 UTC on 2026-10-14: one day in UTC, two in Berlin (UTC+2 in October).
        let evening = F.morning + 12 * 3_600_000 + 30 * 60_000
        var history = AgentRoomHistory()
        _ = history.applyNewestPage(
            AgentRoomPage(
                messages: [
                    F.message(1, createdAt: evening), F.message(2, createdAt: evening + 3_600_000),
                    // A day holding only a hidden message gets no separator.
                    F.message(3, role: .tool, visibility: .internal, createdAt: evening + 86_400_000),
                    F.message(4, createdAt: evening + 2 * 86_400_000),
                ], nextCursor: F.cursor(4), hasMoreBefore: false))
        var inUTC = AgentTranscript(timeZone: utc)
        inUTC.update(from: history)
        #expect(ids(inUTC) == ["day 2026-10-14", "msg-1", "msg-2", "day 2026-10-16", "msg-4"])
        var inBerlin = AgentTranscript(timeZone: try #require(TimeZone(identifier: "Europe/Berlin")))
        inBerlin.update(from: history)
        #expect(ids(inBerlin) == ["day 2026-10-14", "msg-1", "day 2026-10-15", "msg-2", "day 2026-10-16", "msg-4"])
        // The last millisecond of a day and the first of the next, at the boundary.
        let midnight = F.morning + 15 * 3_600_000
        #expect(AgentTranscriptDay(milliseconds: midnight - 1, offsetSeconds: 0).description == "2026-10-14")
        #expect(AgentTranscriptDay(milliseconds: midnight, offsetSeconds: 0).description == "2026-10-15")
        #expect(AgentTranscriptDay(milliseconds: 0, offsetSeconds: -1).description == "1969-12-31")
        #expect(AgentTranscriptDay(milliseconds: 0, offsetSeconds: 0).description == "1970-01-01")
        #expect(AgentTranscriptDay(dayNumber: 11_016).description == "2000-02-29")
    }

    @Test func theWindowHoldsTheNewestVisibleMessagesAndLiveOnesJoinAtTheBottom() {
        var history = AgentRoomHistory()
        // 1…30 with every third message a hidden tool call: 20 visible.
        let messages = (1...30).map { $0 % 3 == 0 ? F.tool($0) : F.message($0) }
        _ = history.applyNewestPage(AgentRoomPage(messages: messages, nextCursor: F.cursor(30), hasMoreBefore: true))
        var transcript = AgentTranscript(timeZone: utc, pageSize: 8)
        transcript.update(from: history)
        let shown = transcript.rows.compactMap(\.message)
        #expect(shown.count == 8, "eight visible messages, the hidden ones not counted")
        #expect(shown.first?.messageId == "msg-19")
        #expect(shown.last?.messageId == "msg-29")
        #expect(transcript.visibleAboveWindow == 12)
        _ = history.applyLive([F.message(31), F.tool(33), F.message(32)])
        transcript.update(from: history)
        #expect(transcript.rows.compactMap(\.message).first?.messageId == "msg-19", "nothing leaves at the top")
        #expect(transcript.rows.compactMap(\.message).count == 10)
    }

    @Test func scrollingToTheTopGrowsTheWindowByPagesOfVisibleMessages() throws {
        var history = AgentRoomHistory()
        _ = history.applyNewestPage(F.page(Array(11...20), hasMoreBefore: true))
        var transcript = AgentTranscript(timeZone: utc, pageSize: 4)
        transcript.update(from: history)
        #expect(transcript.rows.compactMap(\.message).count == 4)
        #expect(transcript.showOlder(in: history) == 4)
        #expect(transcript.showOlder(in: history) == 2, "only two more are merged above")
        #expect(transcript.showOlder(in: history) == 0, "the room has to load an older page")
        // An older page of hidden messages only gives nothing to show: load another.
        let hiddenOnly = history.applyOlderPage(
            AgentRoomPage(messages: [F.tool(9), F.tool(10)], nextCursor: F.cursor(10), hasMoreBefore: true),
            before: F.cursor(11))
        _ = try #require(hiddenOnly)
        #expect(transcript.showOlder(in: history) == 0)
        let prepended = history.applyOlderPage(F.page(Array(1...8), hasMoreBefore: false), before: F.cursor(9))
        _ = try #require(prepended)
        #expect(transcript.showOlder(in: history) == 4)
        #expect(transcript.rows.compactMap(\.message).first?.messageId == "msg-5")
    }

    @Test func aScrollAnchorSurvivesAPrependAndHiddenMessagesArriving() throws {
        var history = AgentRoomHistory()
        _ = history.applyNewestPage(F.page(Array(101...150), hasMoreBefore: true))
        var transcript = AgentTranscript(timeZone: utc, pageSize: 50)
        transcript.update(from: history)
        // The reader looks at the row of msg-120 (row 20: a separator, then 101…).
        let anchor = try #require(transcript.anchor(forRowAt: 20))
        #expect(anchor == "msg-120")
        #expect(transcript.anchor(forRowAt: 0) == "msg-101", "a separator anchors to the message below it")
        let prepended = history.applyOlderPage(F.page(Array(51...100), hasMoreBefore: true), before: F.cursor(101))
        _ = try #require(prepended)
        _ = history.applyLive([F.tool(151), F.tool(152)])
        #expect(transcript.showOlder(in: history) == 50)
        let row = try #require(transcript.rowIndex(of: .message(anchor)))
        #expect(transcript.rows[row].message?.messageId == anchor)
        // All of 51…100 are the same day: the separator moved to the top; 50 rows came above.
        #expect(row == 70)
        #expect(transcript.rowIndex(of: .day(transcript.day(of: F.message(51)))) == 0)
    }

    @Test func unreadCountsOnlyPublicAssistantRepliesAfterTheReadCursor() {
        var history = AgentRoomHistory()
        _ = history.applyNewestPage(
            AgentRoomPage(
                messages: [
                    F.message(1), F.message(2, role: .user), F.tool(3), F.message(4),
                    F.message(5, visibility: .internal), F.message(6, role: .system), F.message(7),
                ], nextCursor: F.cursor(7), hasMoreBefore: false))
        #expect(AgentTranscript.unreadCount(in: history, readState: nil) == 3)
        #expect(
            AgentTranscript.unreadCount(in: history, readState: AgentReadState(readCursor: F.cursor(1), unread: 2)) == 2
        )
        #expect(
            AgentTranscript.unreadCount(in: history, readState: AgentReadState(readCursor: F.cursor(4), unread: 1)) == 1
        )
        #expect(
            AgentTranscript.unreadCount(in: history, readState: AgentReadState(readCursor: F.cursor(7), unread: 0)) == 0
        )
        // A read cursor older than what is loaded: the server's count covers what is not.
        var partial = AgentRoomHistory()
        _ = partial.applyNewestPage(F.page([50, 51], hasMoreBefore: true))
        #expect(
            AgentTranscript.unreadCount(in: partial, readState: AgentReadState(readCursor: F.cursor(10), unread: 40))
                == 40)
        #expect(
            AgentTranscript.unreadCount(in: partial, readState: AgentReadState(readCursor: F.cursor(50), unread: 40))
                == 1)
    }

    /// The rows a transcript whose window starts at `start` must show, built from scratch.
    private func expectedRows(_ history: AgentRoomHistory, windowStart start: AgentCursor?) -> [AgentTranscriptRow] {
        guard let start else { return [] }
        var rows: [AgentTranscriptRow] = []
        var currentDay: AgentTranscriptDay?
        for message in history.messages[history.firstIndex(atOrAfter: start)...] where message.isVisible {
            let day = AgentTranscriptDay(milliseconds: message.createdAt, offsetSeconds: 0)
            if currentDay.map({ day > $0 }) ?? true {
                currentDay = day
                rows.append(.day(day))
            }
            rows.append(.message(message))
        }
        return rows
    }

    @Test func rowsUpdatedStepByStepEqualRowsBuiltFromScratch() {
        // Appends (read incrementally), edits, late arrivals below the newest, day changes and
        // hidden messages, in a seeded order: after each step the rows are what a full build shows.
        let random = SeededRandomSource(seed: 42)
        var history = AgentRoomHistory()
        _ = history.applyNewestPage(F.page([10, 20, 30], hasMoreBefore: false))
        var transcript = AgentTranscript(timeZone: utc, pageSize: 2)
        transcript.update(from: history)
        var next = 40
        for step in 0..<400 {
            switch random.next(below: 5) {
            case 0, 1:
                // A new message; one in three hidden; a few a day apart.
                let hidden = random.next(below: 3) == 0
                let later = Int64(step) * 3_600_000 * 5
                let message =
                    hidden
                    ? F.tool(next) : F.message(next, createdAt: F.morning + later)
                _ = history.applyLive(message)
                next += 10
            case 2:
                // A late arrival between two merged messages.
                let below = next - 10 - Int(random.next(below: 5))
                if below > 0, !history.contains(messageId: "msg-\(below)") { _ = history.applyLive(F.message(below)) }
            case 3:
                // The server changed a merged message (text, or visible ↔ hidden).
                if let target = history.messages.dropFirst(Int(random.next(below: UInt64(history.messages.count))))
                    .first
                {
                    var edited = target
                    edited.text += " (edited)"
                    if random.next(below: 4) == 0 {
                        edited.visibility = edited.visibility == .public ? .internal : .public
                    }
                    _ = history.applyLive(edited)
                }
            default:
                break
            }
            transcript.update(from: history)
            #expect(transcript.rows == expectedRows(history, windowStart: transcript.windowStart), "step \(step)")
            for (index, row) in transcript.rows.enumerated() {
                #expect(transcript.rowIndex(of: row.id) == index, "step \(step)")
            }
        }
    }
}
