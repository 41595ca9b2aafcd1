import SybilCore
import SybilWire
import Testing

@testable import SybilClient

/// The queue finds entries through an index instead of walking them; these runs check it
/// against the rules read straight off the entries, and the journal record built from the
/// changed request ids against the state it must produce.
@Suite("Agent outbox queue index", .timeLimit(.minutes(2)))
struct AgentOutboxQueueIndexTests {
    /// A small deterministic generator (xorshift), so every run takes the same steps.
    struct Steps {
        var state: UInt64
        mutating func next(_ bound: Int) -> Int {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            return Int(state % UInt64(bound))
        }
    }

    /// What the rules say, read from the entries alone.
    static func naiveNextAction(_ entries: [AgentOutboxEntry]) -> AgentOutboxQueue.Action {
        guard let index = entries.firstIndex(where: { [.queued, .sending, .failed].contains($0.state) }) else {
            return .idle
        }
        let entry = entries[index]
        switch entry.state {
        case .queued: return .send(entry)
        case .sending: return .inFlight(requestId: entry.requestId)
        default: return entries[(index + 1)...].contains { $0.state == .queued } ? .held(by: entry) : .idle
        }
    }

    static func naiveHasAcknowledged(_ entries: [AgentOutboxEntry], through cursor: AgentCursor) -> Bool {
        entries.contains { $0.state == .awaitingEcho && ($0.acknowledgement.map { $0.cursor <= cursor } ?? false) }
    }

    static func cursor(_ number: Int) -> AgentCursor {
        AgentCursor("c-" + String(repeating: "0", count: max(0, 6 - String(number).count)) + String(number))!
    }

    /// One random event of the rules; the errors the rules answer with are part of the run.
    static func step(_ queue: inout AgentOutboxQueue, _ steps: inout Steps, made: inout Int) {
        let ids = queue.entries.map(\.requestId)
        let some = ids.isEmpty ? "missing" : ids[steps.next(ids.count)]
        switch steps.next(9) {
        case 0, 1:
            made += 1
            let draft = steps.next(4) == 0 ? "draft-\(made)" : nil
            _ = try? queue.enqueue(
                AgentOutboxEntry(requestId: "r-\(made)", text: "m \(made)", createdAt: 1, draftId: draft))
        case 2:
            if case .send(let entry) = queue.nextAction { _ = try? queue.beginSending(entry.requestId) }
        case 3:
            guard case .inFlight(let id) = queue.nextAction, let entry = queue.entry(id) else { return }
            let result: Result<AgentRoomReceipt, AgentRoomError> =
                steps.next(3) == 0
                ? .failure(.transport("reset"))
                : .success(
                    AgentRoomReceipt(
                        requestId: id, messageId: "m-\(id)", cursor: cursor(steps.next(500)),
                        attachments: entry.attachments.map(\.uploadId)))
            _ = queue.finishSending(id, result: result)
        case 4:
            _ = queue.confirm(
                echo: AgentRoomMessage(
                    messageId: "e-\(some)", cursor: cursor(steps.next(500)), requestId: some, role: .user,
                    visibility: .public, text: "m", createdAt: 1))
        case 5: _ = queue.confirmAcknowledged(through: cursor(steps.next(500)))
        case 6:
            if steps.next(2) == 0 { try? queue.retry(some) } else { _ = queue.resendAll() }
        case 7:
            if steps.next(2) == 0 { _ = try? queue.discard(some) } else { _ = queue.removeConfirmed() }
        default:
            if steps.next(3) == 0 { _ = queue.relaunch() } else { try? queue.cancelSending(some) }
        }
    }

    @Test(arguments: [1, 2, 3, 4, 5, 6, 7, 8] as [UInt64])
    func theIndexAgreesWithTheEntriesAfterEveryEvent(seed: UInt64) throws {
        var steps = Steps(state: seed &* 0x9E37_79B9_7F4A_7C15 | 1)
        var queue = AgentOutboxQueue()
        var made = 0
        for _ in 0..<600 {
            Self.step(&queue, &steps, made: &made)
            let entries = queue.entries
            #expect(queue.nextAction == Self.naiveNextAction(entries))
            #expect(queue.hasConfirmed == entries.contains { $0.state == .confirmed })
            let probe = Self.cursor(steps.next(500))
            #expect(queue.hasAcknowledged(through: probe) == Self.naiveHasAcknowledged(entries, through: probe))
            for (position, entry) in entries.enumerated() {
                #expect(queue.entry(entry.requestId) == entry)
                #expect(queue.position(of: entry.requestId) == position)
            }
            #expect(queue.entry("missing") == nil)
            // A queue rebuilt from the same entries (a relaunch's) agrees too.
            let rebuilt = AgentOutboxQueue(entries: entries, retiredDraftIds: queue.retiredDraftIds)
            #expect(rebuilt == queue)
            #expect(rebuilt.nextAction == queue.nextAction)
        }
        #expect(made > 50)
    }

    @Test(arguments: [21, 22, 23] as [UInt64])
    func theConfirmedCountIsTheNumberOfConfirmedEntriesAfterEveryEvent(seed: UInt64) {
        var steps = Steps(state: seed &* 0x9E37_79B9_7F4A_7C15 | 1)
        var queue = AgentOutboxQueue()
        var made = 0
        var sawSome = false
        for _ in 0..<600 {
            Self.step(&queue, &steps, made: &made)
            let confirmed = queue.entries.filter { $0.state == .confirmed }.count
            #expect(queue.confirmedCount == confirmed)
            if confirmed > 0 { sawSome = true }
        }
        #expect(sawSome)
        // A queue rebuilt from the same entries (a relaunch's) counts the same.
        #expect(
            AgentOutboxQueue(entries: queue.entries, retiredDraftIds: queue.retiredDraftIds).confirmedCount
                == queue.confirmedCount)
    }

    @Test(arguments: [11, 12, 13, 14] as [UInt64])
    func aRecordOfTheChangedEntriesTurnsTheSavedDocumentIntoTheNewOne(seed: UInt64) throws {
        var steps = Steps(state: seed &* 0x9E37_79B9_7F4A_7C15 | 1)
        var saved = AgentOutboxQueue()
        var made = 0
        var records = 0
        for _ in 0..<300 {
            var next = saved
            _ = next.takeChangedIds()
            for _ in 0..<(1 + steps.next(4)) { Self.step(&next, &steps, made: &made) }
            let changed = next.takeChangedIds()
            let snapshot = AgentOutboxDocument(
                baseURL: "https://example.test/", entries: saved.entries, retiredDraftIds: saved.retiredDraftIds
            ).encoded()
            let record = AgentOutboxJournal.record(changed: changed, from: saved, to: next) {
                AgentOutboxDocument.encoded(entry: $0)
            }
            guard let record else {
                #expect(next == saved)
                continue
            }
            records += 1
            let (merged, problem) = AgentOutboxJournal.merge(snapshot: snapshot, records: [record.bytes])
            #expect(problem == nil)
            let (document, problems) = try AgentOutboxDocument.decode(merged)
            #expect(problems.isEmpty)
            #expect(document.entries == next.entries)
            #expect(document.retiredDraftIds == next.retiredDraftIds)
            saved = next
        }
        #expect(records > 100)
    }
}
