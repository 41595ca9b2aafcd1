import SybilCore
import SybilWire
import Testing

@testable import SybilClient

/// A journal record notes the three changes of a delivery (hand-over, receipt, echo) from the
/// entries' fields; these runs check that it notes exactly what comparing the entries' stored
/// members notes, for every change the rules make.
@Suite("Agent outbox journal progress changes", .timeLimit(.minutes(2)))
struct AgentOutboxJournalProgressTests {
    @Test(arguments: [31, 32, 33, 34, 35, 36] as [UInt64])
    func theFieldsNoteWhatTheMembersNote(seed: UInt64) {
        var steps = AgentOutboxQueueIndexTests.Steps(state: seed &* 0x9E37_79B9_7F4A_7C15 | 1)
        var queue = AgentOutboxQueue()
        var made = 0
        var compared = 0
        var fast = 0
        for _ in 0..<600 {
            let before = queue
            AgentOutboxQueueIndexTests.step(&queue, &steps, made: &made)
            for entry in queue.entries {
                guard let old = before.entry(entry.requestId) else { continue }
                var byFields = AgentOutboxJournal.Changes()
                var byMembers = AgentOutboxJournal.Changes()
                let noted = byFields.note(from: old, to: entry)
                let notedByMembers = byMembers.noteMembers(from: old, to: entry)
                #expect(noted == notedByMembers)
                #expect(byFields == byMembers)
                compared += 1
                var probe = AgentOutboxJournal.Changes()
                if probe.noteProgress(from: old, to: entry) { fast += 1 }
            }
        }
        #expect(compared > 1_000)
        #expect(fast > 20)
    }

    @Test func aHandOverAReceiptAndAnEchoAreNotedFromTheFields() throws {
        let queued = AgentOutboxEntry(requestId: "r-1", text: "hello", createdAt: 1)
        var sending = queued
        sending.state = .sending
        sending.attempts = 1
        var acknowledged = sending
        acknowledged.state = .awaitingEcho
        acknowledged.acknowledgement = .init(messageId: "m-1", cursor: try #require(AgentCursor("c-000001")))
        var confirmed = acknowledged
        confirmed.state = .confirmed
        var changes = AgentOutboxJournal.Changes()
        let handedOver = changes.noteProgress(from: queued, to: sending)
        let received = changes.noteProgress(from: sending, to: acknowledged)
        let echoed = changes.noteProgress(from: acknowledged, to: confirmed)
        #expect(handedOver && received && echoed)
        #expect(changes.sent == [JSONMember("r-1", .number(JSONNumber(Int64(1))))])
        #expect(changes.acknowledged == [JSONMember("r-1", .array([.string("m-1"), .string("c-000001")]))])
        #expect(changes.confirmed == [.string("r-1")])
        #expect(changes.setting.isEmpty && changes.unsetting.isEmpty)
        // Anything else (here a text that changed with the state) is left to the members.
        var edited = sending
        edited.text = "hello again"
        let editedNoted = changes.noteProgress(from: queued, to: edited)
        #expect(!editedNoted)
    }
}
