import SybilCore
import SybilWire
import Testing

@testable import SybilClient

/// The journal's short forms of the two changes every delivered message makes: a receipt is
/// an `ack`, an echo that only confirms is a `confirm`; both read back as the `set` they stand
/// for, and records written as `set` before the short forms existed still read.
@Suite("Agent outbox journal short forms", .timeLimit(.minutes(2)))
struct AgentOutboxJournalShortFormTests {
    private typealias Rules = AgentOutboxQueueTests

    /// The record that turns `old` into `new`, as the outbox writes it.
    private func record(_ old: AgentOutboxQueue, _ new: inout AgentOutboxQueue) throws -> [UInt8] {
        let changed = new.takeChangedIds()
        let record = try #require(
            AgentOutboxJournal.record(changed: changed, from: old, to: new) { AgentOutboxDocument.encoded(entry: $0) })
        #expect(
            AgentOutboxJournal.record(from: old, to: new) { AgentOutboxDocument.encoded(entry: $0) }?.bytes
                == record.bytes, "both builders write the same record")
        return record.bytes
    }

    private func snapshot(_ queue: AgentOutboxQueue) -> [UInt8] {
        AgentOutboxDocument(baseURL: "https://example.test/", entries: queue.entries).encoded()
    }

    private func merged(_ snapshot: [UInt8], _ records: [[UInt8]]) throws -> [AgentOutboxEntry] {
        let (bytes, problem) = AgentOutboxJournal.merge(snapshot: snapshot, records: records)
        #expect(problem == nil)
        let (document, problems) = try AgentOutboxDocument.decode(bytes)
        #expect(problems.isEmpty)
        return document.entries
    }

    @Test func aReceiptIsAnAckAndAnEchoAConfirm() throws {
        var sending = try Rules.queue("a", "b")
        _ = try sending.beginSending("a")
        _ = sending.takeChangedIds()
        let base = snapshot(sending)

        var acknowledged = sending
        _ = acknowledged.finishSending("a", result: .success(Rules.receipt(for: sending.entry("a")!)))
        let ack = try record(sending, &acknowledged)
        #expect(String(decoding: ack, as: UTF8.self) == #"{"ack":{"a":["msg-7","c-000007"]}}"#)

        var confirmed = acknowledged
        let echoed = confirmed.confirm(echo: Rules.echo("a"))
        #expect(echoed)
        let confirm = try record(acknowledged, &confirmed)
        #expect(String(decoding: confirm, as: UTF8.self) == #"{"confirm":["a"]}"#)

        #expect(try merged(base, [ack]) == acknowledged.entries)
        #expect(try merged(base, [ack, confirm]) == confirmed.entries)
        #expect(AgentOutboxJournal.isFolded([ack, confirm], into: snapshot(confirmed)))
        #expect(!AgentOutboxJournal.isFolded([ack, confirm], into: snapshot(acknowledged)))
        #expect(!AgentOutboxJournal.isFolded([ack], into: base))
    }

    /// Handing an entry over is a `send` with its attempts; the same change written as a `set`
    /// (before the short form existed) reads to the same entries; a hand-over after a Retry (which
    /// already dropped the failure) is a `send` with the next attempt.
    @Test func aHandOverIsASendAndTheOldSetStillReads() throws {
        let queued = try Rules.queue("a", "b")
        let base = snapshot(queued)
        var sending = queued
        _ = try sending.beginSending("a")
        let send = try record(queued, &sending)
        #expect(String(decoding: send, as: UTF8.self) == #"{"send":{"a":1}}"#)
        let old = Array(#"{"set":{"a":{"state":"sending","attempts":1}}}"#.utf8)
        #expect(try merged(base, [send]) == sending.entries)
        #expect(try merged(base, [old]) == sending.entries)
        #expect(AgentOutboxJournal.isFolded([send], into: snapshot(sending)))
        #expect(!AgentOutboxJournal.isFolded([send], into: base))
        // Not a number, or an entry that is not there: refused, naming the member.
        for (text, path) in [(#"{"send":{"a":"1"}}"#, "send.a"), (#"{"send":{"z":1}}"#, "send.z")] {
            let problem = AgentOutboxJournal.merge(snapshot: base, records: [Array(text.utf8)]).1
            #expect(problem.map { "\($0)".contains(path) } == true, "\(text): \(String(describing: problem))")
        }

        var failed = try Rules.queue("b")
        try Rules.send(&failed, "b", .failure(.transport("offline")))
        try failed.retry("b")
        _ = failed.takeChangedIds()
        var again = failed
        _ = try again.beginSending("b")
        let retried = String(decoding: try record(failed, &again), as: UTF8.self)
        #expect(retried == #"{"send":{"b":2}}"#)
        #expect(try merged(snapshot(failed), [Array(retried.utf8)]) == again.entries)
    }

    /// A record whose change member has the wrong kind is one `merge` refuses, so it is never
    /// counted as folded into a snapshot (that would let the journal holding it be removed).
    @Test func aRecordWithAChangeOfTheWrongKindIsNeverFolded() throws {
        let queue = try Rules.queue("a")
        let folded = snapshot(queue)
        for text in [
            #"{"ack":5}"#, #"{"ack":["a"]}"#, #"{"send":1}"#, #"{"confirm":"a"}"#, #"{"confirm":{"a":1}}"#,
            #"{"set":[]}"#,
            #"{"unset":"a"}"#, #"{"remove":"a"}"#, #"{"add":{}}"#,
        ] {
            let bytes = Array(text.utf8)
            #expect(!AgentOutboxJournal.isFolded([bytes], into: folded), "\(text)")
            #expect(AgentOutboxJournal.merge(snapshot: folded, records: [bytes]).1 != nil, "\(text)")
        }
        // The same records with the right kinds and nothing in them change nothing: folded.
        for text in [#"{"ack":{}}"#, #"{"confirm":[]}"#, #"{"set":{}}"#, #"{"remove":[]}"#] {
            #expect(AgentOutboxJournal.isFolded([Array(text.utf8)], into: folded), "\(text)")
        }
    }

    @Test func otherChangesStayASet() throws {
        // An echo that arrives before the receipt confirms with the acknowledgement it carries.
        var sending = try Rules.queue("a")
        _ = try sending.beginSending("a")
        _ = sending.takeChangedIds()
        var confirmed = sending
        let echoed = confirmed.confirm(echo: Rules.echo("a"))
        #expect(echoed)
        let bytes = try record(sending, &confirmed)
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(text.hasPrefix(#"{"set":{"a":{"state":"confirmed","acknowledgement":"#), "\(text)")
        #expect(try merged(snapshot(sending), [bytes]) == confirmed.entries)

        // A receipt after a Retry also drops nothing, and adds no attempt: still an ack.
        var failed = try Rules.queue("b")
        try Rules.send(&failed, "b", .failure(.transport("offline")))
        try failed.retry("b")
        _ = try failed.beginSending("b")
        _ = failed.takeChangedIds()
        var acknowledged = failed
        _ = acknowledged.finishSending("b", result: .success(Rules.receipt(for: failed.entry("b")!)))
        let ack = try record(failed, &acknowledged)
        #expect(String(decoding: ack, as: UTF8.self).hasPrefix(#"{"ack":"#))
        #expect(try merged(snapshot(failed), [ack]) == acknowledged.entries)
    }

    @Test func recordsWrittenAsSetStillRead() throws {
        var sending = try Rules.queue("a")
        _ = try sending.beginSending("a")
        let base = snapshot(sending)
        let records = [
            #"{"set":{"a":{"state":"awaiting-echo","acknowledgement":{"messageId":"msg-7","cursor":"c-000007"}}}}"#,
            #"{"set":{"a":{"state":"confirmed"}}}"#,
        ].map { Array($0.utf8) }
        var confirmed = sending
        _ = confirmed.finishSending("a", result: .success(Rules.receipt(for: sending.entry("a")!)))
        let echoed = confirmed.confirm(echo: Rules.echo("a"))
        #expect(echoed)
        #expect(try merged(base, records) == confirmed.entries)
    }

    @Test(arguments: [
        #"{"ack":{"a":["msg-7"]}}"#, #"{"ack":{"a":["msg-7",7]}}"#, #"{"ack":{"zz":["msg-7","c-000007"]}}"#,
        #"{"ack":["a"]}"#, #"{"confirm":["zz"]}"#, #"{"confirm":[1]}"#, #"{"confirm":{"a":1}}"#,
        #"{"ack":{"a":["","c-000007"]}}"#,
    ])
    func aShortFormThatCannotApplyIsRefused(record: String) throws {
        var sending = try Rules.queue("a")
        _ = try sending.beginSending("a")
        let base = snapshot(sending)
        let (bytes, problem) = AgentOutboxJournal.merge(snapshot: base, records: [Array(record.utf8)])
        // Refused when applied, or the entry it leaves is left out as unreadable.
        let decoded = try? AgentOutboxDocument.decode(bytes)
        let refused = problem != nil || decoded == nil || decoded?.1.isEmpty == false
        #expect(refused, "\(record)")
    }
}
