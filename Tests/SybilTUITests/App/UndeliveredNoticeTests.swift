import Foundation
import SybilClient
import SybilWire
import Testing

@testable import SybilTUI

/// The sentences and rows about messages kept undelivered in the Agent room: a discard says
/// the text is back in the composer only when it is, what comes from the person or the room is
/// drawn on one line and never obeyed, and a kept row names d only when d takes it back.
@Suite("Terminal app: Agent room sentences and rows for messages kept undelivered")
@MainActor
struct UndeliveredNoticeTests {
    static let scope = try! AgentOutboxScope(baseURL: URL(string: "http://127.0.0.1:9/api")!)

    static func message(_ text: String) -> AgentUndeliveredMessages.Message {
        AgentUndeliveredMessages.Message(
            entry: AgentOutboxEntry(
                requestId: "r1", text: text, createdAt: 0, state: .failed,
                failure: AgentOutboxFailure(kind: .refused, message: "Too large.", status: 413)),
            in: scope, cause: .rejected)
    }

    @Test func aDiscardSaysTheTextIsBackOnlyWhenItIs() {
        let notice = UndeliveredNotice.agentRoom
        let message = Self.message("Der Bericht")
        #expect(
            notice.discarded("Der Bericht", .init(restored: message, kept: []), stillKept: 0)
                == "Discarded “Der Bericht”; its text is back in the composer.")
        let kept = notice.discarded("Der Bericht", .init(restored: nil, kept: [message]), stillKept: 1)
        #expect(!kept.contains("back in the composer"), "\(kept)")
        #expect(kept.contains("kept at the end of the room"))
        #expect(kept.contains("d in the timeline takes the oldest back"))
        // An attachment-only message has no text to give back, and none is claimed.
        #expect(
            notice.discarded("report.pdf", .init(restored: Self.message(""), kept: []), stillKept: 0)
                == "Discarded “report.pdf”.")
    }

    @Test func aHostileLabelAndReasonAreMadeSafeOnOneLine() {
        let notice = UndeliveredNotice.agentRoom
        let hostile = Self.message("Erst\u{1B}]52;c;Zm9v\u{07}\nzwei")
        let sentences = [
            notice.discarded("Erst\u{1B}]52;c;Zm9v\u{07}", .init(restored: nil, kept: [hostile]), stillKept: 1),
            notice.takenBack(AgentUndeliveredMessages.TakeBack.draftInTheWay(hostile), stillKept: 1),
            notice.handedOver(AgentUndeliveredMessages.HandOver(restored: nil, kept: [hostile]), stillKept: 1) ?? "",
        ]
        for sentence in sentences {
            #expect(
                !sentence.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }, "\(sentence)"
            )
        }
        #expect(sentences[2].hasPrefix("The room did not take your message (Too large (HTTP 413).)"), "\(sentences[2])")
        #expect(!sentences[2].contains("Discard it"), "a message out of the outbox is not discarded again")
    }

    @Test func aKeptRowNamesDOnlyWhenDTakesItBack() {
        let kept = Self.message("Der Bericht")
        func rows(pending: [AgentOutboxEntry]) -> [TimelineItem] {
            AgentTimelineAdapter.items(rows: [], pending: pending, activity: .idle, undelivered: [kept])
                .filter { $0.id.hasPrefix("undelivered-") }
        }
        let alone = rows(pending: [])
        #expect(alone.map(\.body) == ["Der Bericht"])
        #expect(alone.first?.tone == .error)
        #expect(alone.first?.status?.contains("d takes it back into the composer") == true)
        let refused = AgentOutboxEntry(
            requestId: "r2", text: "Noch einer", createdAt: 0, state: .failed,
            failure: AgentOutboxFailure(kind: .refused, message: "Too large.", status: 413))
        #expect(
            rows(pending: [refused]).first?.status?.contains("d takes") == false,
            "d discards the refused message first")
    }
}
