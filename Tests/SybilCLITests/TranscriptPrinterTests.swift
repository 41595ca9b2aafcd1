import Foundation
import SybilTimeline
import SybilWire
import Testing

@testable import SybilCLI

/// What `sybil workspaces open` prints as a chat's display rows change.
@Suite("Transcript printer", .timeLimit(.minutes(2)))
struct TranscriptPrinterTests {
    private func row(
        _ id: String, _ type: TimelineRowType, _ text: String, state: TimelineRow.State = .confirmed,
        runId: String? = nil, thread: String? = nil
    ) -> TimelineRow {
        TimelineRow(
            identity: .row(id), type: type, text: text, timestamp: 1_764_400_000_000, state: state, runId: runId,
            subagentThreadId: thread)
    }

    /// An agent reply.
    private func row(
        _ id: String, _ text: String, state: TimelineRow.State = .confirmed, thread: String? = nil
    ) -> TimelineRow {
        row(id, .agentReply, text, state: state, thread: thread)
    }

    private func display(_ rows: [TimelineRow], activeRunId: String? = nil) -> DisplayRows {
        DisplayRows(timeline: rows, activeRunId: activeRunId)
    }

    private func thinking(_ text: String) -> TimelineRow {
        row("t-1", .thinking, text, state: .live, runId: "run-1")
    }

    @Test func newRowsArePrintedOnceInOrder() {
        var printer = TranscriptPrinter()
        let first = display([row("r-1", .user, "Fix login"), row("r-2", "On it.")])
        #expect(printer.lines(for: first) == ["[user] Fix login", "[agent] On it."])
        #expect(printer.lines(for: first).isEmpty)
        let more = display([row("r-1", .user, "Fix login"), row("r-2", "On it."), row("r-3", .system, "Done")])
        #expect(printer.lines(for: more) == ["[system] Done"])
        #expect(printer.lines(for: more).isEmpty)
    }

    @Test func aRowIsPrintedAgainWhenItsTextChanges() {
        var printer = TranscriptPrinter()
        _ = printer.lines(for: display([row("r-1", .user, "Fix login"), row("r-2", "Look", state: .live)]))
        let grown = display([row("r-1", .user, "Fix login"), row("r-2", "Looking", state: .live)])
        #expect(printer.lines(for: grown) == ["[agent · live] Looking"])
        #expect(printer.lines(for: grown).isEmpty)
        let settled = display([row("r-1", .user, "Fix login"), row("r-2", "Looking")])
        #expect(printer.lines(for: settled) == ["[agent] Looking"], "confirmation prints it once more")
        #expect(printer.lines(for: settled).isEmpty)
        let backToLive = display([row("r-1", .user, "Fix login"), row("r-2", "Looking", state: .live)])
        #expect(printer.lines(for: backToLive).isEmpty, "a confirmed row is not printed as live again")
    }

    @Test func aRowThatLeavesAndComesBackUnchangedIsNotPrintedAgain() {
        var printer = TranscriptPrinter()
        _ = printer.lines(for: display([row("r-1", "A")]))
        #expect(printer.lines(for: display([])).isEmpty)
        #expect(printer.lines(for: display([row("r-1", "A")])).isEmpty)
        #expect(printer.lines(for: display([row("r-1", "B")])) == ["[agent] B"])
    }

    @Test func thePinnedStatusIsPrintedWhenItChanges() {
        var printer = TranscriptPrinter()
        let reply = row("r-1", "Starting")
        #expect(
            printer.lines(for: display([reply, thinking("Reading files")], activeRunId: "run-1")) == [
                "[agent] Starting", "  … Reading files",
            ])
        #expect(printer.lines(for: display([reply, thinking("Reading files")], activeRunId: "run-1")).isEmpty)
        #expect(
            printer.lines(for: display([reply, thinking("Running tests")], activeRunId: "run-1")) == [
                "  … Running tests"
            ])
        #expect(printer.lines(for: display([reply], activeRunId: nil)).isEmpty, "no status, nothing to print")
        #expect(
            printer.lines(for: display([reply, thinking("Running tests")], activeRunId: "run-1")) == [
                "  … Running tests"
            ], "a status that returns is printed again")
    }

    @Test func thinkingOfAnotherRunIsNotPinned() {
        var printer = TranscriptPrinter()
        #expect(printer.lines(for: display([thinking("Reading files")], activeRunId: "run-2")).isEmpty)
    }

    @Test func stateMarkers() {
        #expect(TranscriptPrinter.line(for: row("r-1", "Hi")) == "[agent] Hi")
        #expect(TranscriptPrinter.line(for: row("r-1", "Hi", state: .live)) == "[agent · live] Hi")
        let pending = TimelineRow(pending: PendingMessage(operationId: "op-1", text: "Fix it", createdAt: 1))
        #expect(TranscriptPrinter.line(for: pending) == "[user · sending] Fix it")
    }

    @Test(
        "each row type has its label",
        arguments: [
            (TimelineRowType.user, "user"), (.agentReply, "agent"), (.activity, "activity"), (.system, "system"),
            (.thinking, "thinking"),
        ])
    func typeLabels(type: TimelineRowType, label: String) {
        #expect(TranscriptPrinter.line(for: row("r-1", type, "x")) == "[\(label)] x")
    }

    @Test func continuationLinesAreIndented() {
        #expect(TranscriptPrinter.line(for: row("r-1", "one\ntwo\n\nfour")) == "[agent] one\n  two\n  \n  four")
        #expect(TranscriptPrinter.line(for: row("r-1", "end\n")) == "[agent] end\n  ")
    }

    @Test func aReplyThatOpensAThreadNamesIt() {
        let opener = row("r-1", "Spawned a helper", thread: "th-9")
        #expect(TranscriptPrinter.line(for: opener) == "[agent] Spawned a helper  [thread th-9]")
        #expect(
            TranscriptPrinter.line(for: row("r-1", "a\nb", thread: "th-9")) == "[agent] a\n  b  [thread th-9]",
            "the marker follows the last line")
        var printer = TranscriptPrinter()
        let panel = row("r-2", .activity, "ran tests", thread: "th-9")
        #expect(
            printer.lines(for: display([opener, panel])) == ["[agent] Spawned a helper  [thread th-9]"],
            "rows of the thread's own panel stay out of the transcript")
    }
}

/// What a desktop or a room member wrote reaches the terminal shown, never obeyed.
@Suite("Transcript printers and hostile text", .timeLimit(.minutes(2)))
struct TranscriptPrinterHostileTextTests {
    static let hostile = "hi\u{1B}]52;c;cHduZWQ=\u{07}\u{1B}[2J\u{1B}]0;owned\u{07}\u{9B}31m"
    static let shown = "hi\u{FFFD}]52;c;cHduZWQ=\u{FFFD}\u{FFFD}[2J\u{FFFD}]0;owned\u{FFFD}\u{FFFD}31m"

    @Test func workspaceRowsAreMadeSafe() {
        var printer = TranscriptPrinter()
        let row = TimelineRow(
            identity: .row("r-1"), type: .agentReply, text: Self.hostile, timestamp: 1_764_400_000_000,
            state: .confirmed)
        #expect(printer.lines(for: DisplayRows(timeline: [row], activeRunId: nil)) == ["[agent] \(Self.shown)"])
    }

    @Test func agentRoomMessagesAndAttachmentNamesAreMadeSafe() throws {
        var printer = AgentTranscriptPrinter(timeZone: .gmt)
        let message = AgentRoomMessage(
            messageId: "m-1", cursor: try #require(AgentCursor("c-1")), role: .user, visibility: .public,
            text: Self.hostile, createdAt: 0,
            attachments: [
                AgentAttachment(
                    uploadId: "u-1", fileName: "a\u{1B}[2J.png", mimeType: "image/png", size: 3,
                    sha256: String(repeating: "0", count: 64))
            ])
        let lines = printer.lines(for: [.message(message)])
        #expect(lines.first == "[00:00] user: \(Self.shown)")
        #expect(lines.dropFirst().allSatisfy { !$0.unicodeScalars.contains("\u{1B}") })
        #expect(lines.count == 2)
    }
}
