import SybilClient
import SybilWire
import Testing

@testable import SybilTUI

/// The status line's sentences about workspace messages kept undelivered: a reason from the
/// desktop and the person's text are drawn, never obeyed, and stay on one line.
@Suite("Terminal app notices for workspace messages kept undelivered")
struct WorkspaceUndeliveredNoticeTests {
    static let chat = WorkspaceChatKey(desktopId: "desk-1", projectId: "app", sessionId: "s1")

    static func message(_ text: String, reason: String) -> WorkspaceUndeliveredMessages.Message {
        WorkspaceUndeliveredMessages.Message(
            entry: WorkspaceOutboxEntry(
                chat: chat, operationId: "op-1", mutation: .init(mutationId: "m-1", text: text), mode: .send,
                createdAt: 0),
            cause: .rejected, reason: reason)
    }

    @Test func aHostileReasonTextAndTitleAreMadeSafeAndKeptOnOneLine() throws {
        let kept = Self.message("Erst\u{1B}]52;c;Zm9v\u{07}\nzwei", reason: "run\u{1B}[2J ended\r\nnow")
        let sentences = [
            try #require(WorkspaceUndeliveredNotice.handedOver(.init(restored: kept, kept: []), stillKept: 1)),
            try #require(WorkspaceUndeliveredNotice.handedOver(.init(restored: nil, kept: [kept]), stillKept: 1)),
            try #require(
                WorkspaceUndeliveredNotice.handedOver(
                    .init(restored: nil, kept: [kept, kept]), inLeftSession: "Eins\u{1B}[31m", stillKept: 2)),
            WorkspaceUndeliveredNotice.takenBack(.draftInTheWay(kept), stillKept: 1),
        ]
        for sentence in sentences {
            #expect(
                !sentence.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }, "\(sentence)"
            )
        }
        #expect(sentences[1].contains("zwei"), "the kept text is quoted")
        #expect(sentences[2].contains("2 messages not delivered are kept"))
    }

    @Test func aLongTextIsQuotedInPartTheRowShowsItWhole() throws {
        let long = String(repeating: "a", count: 500)
        let sentence = try #require(
            WorkspaceUndeliveredNotice.handedOver(
                .init(restored: nil, kept: [Self.message(long, reason: "no")]), stillKept: 1))
        #expect(sentence.count < 400)
        #expect(sentence.contains("…"))
    }
}
