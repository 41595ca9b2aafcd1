import Foundation
import SybilClient
import SybilTimeline
import SybilWire
import Testing

@testable import SybilTUI

/// The screen adapters: each surface's rows as timeline entries, with the states the engine
/// decided shown as status lines, never re-decided.
@Suite("Timeline adapters")
struct TimelineAdapterTests {
    @Test func aChatShowsItsMessagesAndEveryEndingOfAReply() {
        let messages: [ChatTranscriptMessage] = [
            .init(id: "s", role: .system, text: "Be brief", createdAt: 0),
            .init(id: "u", role: .user, text: "Frage", createdAt: 1),
            .init(id: "a1", role: .assistant, text: "Teil", state: .streaming, createdAt: 2),
            .init(id: "a2", role: .assistant, text: "Halb", state: .stopped, createdAt: 3),
            .init(
                id: "a3", role: .assistant, text: "", state: .failed(reason: "Server down"),
                createdAt: 4),
        ]
        let items = Array(
            ChatTimelineAdapter.items(messages, lastError: "Server down", timeZone: .gmt).dropFirst())
        #expect(items.map(\.id) == ["u", "a1", "a2", "a3"], "the system prompt is not shown; a failed reply says it")
        #expect(items[0].role == .user && items[0].author == "You" && !items[0].isMarkdown)
        #expect(items[1].role == .assistant && items[1].isMarkdown)
        #expect(items[1].status == "Sybil is typing… (Ctrl+C stops)")
        #expect(items[2].status == "Stopped" && items[2].tone == .warning)
        #expect(items[3].status == "Failed: Server down (r retries)" && items[3].tone == .error)
    }

    @Test func aChatErrorWithoutAFailedReplyIsShownOnce() {
        let messages: [ChatTranscriptMessage] = [.init(id: "u", role: .user, text: "Hi", createdAt: 1)]
        let items = ChatTimelineAdapter.items(messages, lastError: "Your message could not be saved")
        #expect(items.last?.role == .system)
        #expect(items.last?.body == "Your message could not be saved")
        #expect(items.last?.tone == .error)
    }

    @Test func aDateSeparatorComesBeforeEachDaysFirstMessage() {
        let day: Int64 = 86_400_000
        let base: Int64 = 20_422 * day  // Sunday, 30 November 2025, 00:00 UTC
        let messages: [ChatTranscriptMessage] = [
            .init(id: "1", role: .user, text: "a", createdAt: base + 1),
            .init(id: "2", role: .assistant, text: "b", createdAt: base + day - 1),
            .init(id: "3", role: .user, text: "c", createdAt: base + day),
        ]
        let items = ChatTimelineAdapter.items(messages, timeZone: .gmt)
        #expect(items.map(\.role) == [.dateSeparator, .user, .assistant, .dateSeparator, .user])
        #expect(items[0].body == "Sunday, 30 November 2025")
        #expect(items[3].body == "Monday, 1 December 2025")
        for (number, label) in [(20_422, "Sunday, 30 November 2025"), (20_423, "Monday, 1 December 2025")] {
            #expect(AgentTimelineAdapter.dayLabel(AgentTranscriptDay(dayNumber: Int64(number))) == label)
        }
        #expect(AgentTimelineAdapter.dayLabel(AgentTranscriptDay(dayNumber: 0)) == "Thursday, 1 January 1970")
        #expect(AgentTimelineAdapter.dayLabel(AgentTranscriptDay(dayNumber: -1)) == "Wednesday, 31 December 1969")
        let berlin = ChatTimelineAdapter.items(messages, timeZone: TimeZone(identifier: "Europe/Berlin")!)
        #expect(berlin.map(\.role) == [.dateSeparator, .user, .dateSeparator, .assistant, .user])
    }

    @Test func aStreamingReplyChangesItsRevisionAsTextArrives() {
        func reply(_ text: String) -> TimelineItem {
            ChatTimelineAdapter.items([
                .init(id: "a", role: .assistant, text: text, state: .streaming, createdAt: 1)
            ])[1]
        }
        #expect(reply("Hal").revision != reply("Hallo").revision)
        #expect(reply("Hallo").revision == reply("Hallo").revision)
    }

    @Test func theAgentRoomShowsTheOutboxStatesAndTheActivity() throws {
        let cursor = try #require(AgentCursor("c-1"))
        let rows: [AgentTranscriptRow] = [
            .day(AgentTranscriptDay(dayNumber: 20_000)),
            .message(
                AgentRoomMessage(
                    messageId: "m1", cursor: cursor, role: .user, visibility: .public, text: "Hallo", createdAt: 1)),
            .message(
                AgentRoomMessage(
                    messageId: "m2", cursor: cursor, role: .assistant, visibility: .public, text: "**Hi**", createdAt: 2
                )
            ),
        ]
        let failure = AgentOutboxFailure(kind: .unavailable, message: "the room is busy")
        let pending = [
            AgentOutboxEntry(requestId: "r1", text: "eins", createdAt: 3, state: .queued),
            AgentOutboxEntry(requestId: "r2", text: "zwei", createdAt: 4, state: .sending),
            AgentOutboxEntry(requestId: "r3", text: "drei", createdAt: 5, state: .awaitingEcho),
            AgentOutboxEntry(requestId: "r4", text: "vier", createdAt: 6, state: .failed, failure: failure),
            AgentOutboxEntry(requestId: "r5", text: "fünf", createdAt: 7, state: .confirmed),
        ]
        let items = AgentTimelineAdapter.items(
            rows: rows, pending: pending, activity: .working(detail: "Reading build.log"))
        #expect(
            items.map(\.id) == [
                "day-20000", "message-m1", "message-m2", "outbox-r1", "outbox-r2", "outbox-r3", "outbox-r4",
                "agent-activity",
            ], "a confirmed entry is shown by its echo, not again")
        #expect(items[0].role == .dateSeparator)
        #expect(items[0].body == "Friday, 4 October 2024", "one date format in every timeline")
        #expect(items[2].isMarkdown && items[2].author == "Sybil Agent")
        #expect(items[3].status == "Queued")
        #expect(items[4].status == "Sending…")
        #expect(items[5].status == "Sent, waiting for the room")
        #expect(items[6].tone == .error)
        #expect(items[6].status?.hasPrefix("Failed: ") == true)
        #expect(items[6].status?.hasSuffix("(r retries, R resends all)") == true)
        #expect(items[7].role == .thinking && items[7].body == "The agent is working: Reading build.log")
        let marked = AgentTimelineAdapter.items(rows: rows, pending: [], activity: .idle, unreadMarker: "m2")
        #expect(marked.map(\.id) == ["day-20000", "message-m1", "unread-marker", "message-m2"])
        #expect(marked[2].role == .unreadMarker)
    }

    @Test func aWorkspaceShowsDisplayRowsDeliveriesAndThePinnedStatus() {
        let rows = [
            TimelineRow(identity: .row("1"), type: .user, text: "Fix it", timestamp: 1, state: .confirmed),
            TimelineRow(identity: .row("2"), type: .agentReply, text: "On it", timestamp: 2, state: .live),
            TimelineRow(identity: .row("3"), type: .activity, text: "rg login", timestamp: 3, state: .confirmed),
            TimelineRow(identity: .operation("op"), type: .user, text: "More", timestamp: 4, state: .sending),
        ]
        var display = DisplayRows(timeline: rows, activeRunId: nil)
        display.pinnedStatus = TimelineRow(
            identity: .row("t"), type: .thinking, text: "Thinking…", timestamp: 5, state: .live)
        let items = WorkspaceTimelineAdapter.items(display)
        #expect(items.map(\.role) == [.user, .assistant, .activity, .user, .thinking])
        #expect(items[1].status == "live" && items[1].isMarkdown)
        #expect(items[3].status == "Sending…" && items[3].tone == .warning)
        #expect(items[4].body == "Thinking…")
    }
}

/// The composer's `/attach` lines.
@Suite("Composer attachments")
struct ComposerAttachmentsTests {
    @Test func theProgressBarFillsAtItsBoundariesAndClampsNonsense() {
        #expect(ComposerAttachments.bar(0) == "▕░░░░░░░░░░▏ 0%")
        #expect(ComposerAttachments.bar(0.09) == "▕░░░░░░░░░░▏ 9%")
        #expect(ComposerAttachments.bar(0.1) == "▕█░░░░░░░░░▏ 10%")
        #expect(ComposerAttachments.bar(0.45) == "▕████░░░░░░▏ 45%")
        #expect(ComposerAttachments.bar(1) == "▕██████████▏ 100%")
        #expect(ComposerAttachments.bar(1.7) == ComposerAttachments.bar(1))
        #expect(ComposerAttachments.bar(-3) == ComposerAttachments.bar(0))
        #expect(ComposerAttachments.bar(.nan) == ComposerAttachments.bar(0))
    }

    @Test func attachLinesNameFilesAndTheRestIsTheMessage() {
        let split = ComposerAttachments.split("/attach /tmp/build.log\nSieh dir das an\n/attach  a b.pdf \n")
        #expect(split.paths == ["/tmp/build.log", "a b.pdf"])
        #expect(split.caption == "Sieh dir das an")
        #expect(ComposerAttachments.split("kein Anhang").paths.isEmpty)
        #expect(ComposerAttachments.split("/attach \nText").paths.isEmpty, "an empty path attaches nothing")
    }
}
