import SybilClient
import SybilCore
import SybilWire
import Testing

/// The stored format: strict, versioned, every limit at its boundary.
@Suite("Agent outbox document", .timeLimit(.minutes(2)))
struct AgentOutboxDocumentTests {
    static let base = "http://127.0.0.1:8799/api"

    /// A stored entry as JSON text with `members` replaced or added.
    static func entryJSON(_ members: [String: String] = [:], removing: [String] = []) -> String {
        var fields: [(String, String)] = [
            ("requestId", #""req-1""#), ("text", #""hello""#), ("createdAt", "1764400200000"), ("attachments", "[]"),
            ("state", #""queued""#), ("attempts", "0"),
        ]
        fields.removeAll { removing.contains($0.0) }
        for (key, value) in members.sorted(by: { $0.key < $1.key }) {
            if let index = fields.firstIndex(where: { $0.0 == key }) {
                fields[index].1 = value
            } else {
                fields.append((key, value))
            }
        }
        return "{" + fields.map { "\"\($0.0)\":\($0.1)" }.joined(separator: ",") + "}"
    }

    static func document(entries: [String], version: String = "1", extra: String = "") -> [UInt8] {
        Array(
            (#"{"version":\#(version),"baseURL":"\#(base)","entries":["# + entries.joined(separator: ",")
                + #"],"retiredDraftIds":[]"# + extra + "}").utf8)
    }

    /// The problem reported for one stored entry, or `nil` when it is read.
    static func problem(_ entry: String) throws -> String? {
        let (_, problems) = try AgentOutboxDocument.decode(document(entries: [entry]))
        return problems.first?.description
    }

    @Test func aDocumentSurvivesEncodingAndDecoding() throws {
        var failed = AgentOutboxEntry(
            requestId: "req-2", text: "", createdAt: JSONValueReader.maxSafeInteger,
            attachments: [agentAttachment("u1"), agentAttachment("u2")], draftId: "draft-2", state: .failed,
            failure: .from(
                roomRejection(
                    507, "quota_exceeded", "Full.", retryAfter: 86_400,
                    details: ["quota": ["usedBytes": 10, "limitBytes": 10]])), attempts: 1_000_000)
        failed.text = " "
        let entries = [
            AgentOutboxEntry(requestId: "req-1", text: "hello", createdAt: 0),
            failed,
            AgentOutboxEntry(
                requestId: "req-3", text: "acked", createdAt: 5, state: .awaitingEcho, attempts: 1,
                acknowledgement: .init(messageId: "msg-9", cursor: AgentCursor("c-000009")!)),
            AgentOutboxEntry(requestId: "req-4", text: "echoed", createdAt: 6, state: .confirmed),
            AgentOutboxEntry(requestId: "req-5", text: "in flight", createdAt: 7, state: .sending, attempts: 3),
        ]
        let document = AgentOutboxDocument(baseURL: Self.base, entries: entries, retiredDraftIds: ["draft-1"])
        let (decoded, problems) = try AgentOutboxDocument.decode(document.encoded())
        #expect(problems.isEmpty)
        #expect(decoded == document)
    }

    @Test func theFrameMustBeExact() throws {
        let good = Self.document(entries: [])
        #expect(try AgentOutboxDocument.decode(good).document.entries.isEmpty)
        #expect(throws: JSONError.self) { try AgentOutboxDocument.decode(Array("[]".utf8)) }
        #expect(throws: JSONError.contract(.root.appending(key: "version"), "only version 1 is understood, got 0")) {
            try AgentOutboxDocument.decode(Self.document(entries: [], version: "0"))
        }
        #expect(throws: JSONError.self) { try AgentOutboxDocument.decode(Self.document(entries: [], version: "1.0")) }
        #expect(throws: JSONError.self) {
            try AgentOutboxDocument.decode(Self.document(entries: [], extra: #","token":"secret""#))
        }
        #expect(throws: JSONError.self) {
            try AgentOutboxDocument.decode(
                Array(#"{"version":1,"baseURL":"","entries":[],"retiredDraftIds":[]}"#.utf8))
        }
        #expect(throws: JSONError.self) {
            try AgentOutboxDocument.decode(
                Array(#"{"version":1,"baseURL":"x","entries":[],"retiredDraftIds":[""]}"#.utf8))
        }
    }

    @Test func atMostTenThousandEntriesAnd256RetiredDrafts() throws {
        let entry = Self.entryJSON()
        let full = Self.document(entries: Array(repeating: entry, count: 10_000))
        let (document, problems) = try AgentOutboxDocument.decode(full)
        // The same request id 10,000 times: the first is read, the rest reported.
        #expect(document.entries.count == 1 && problems.count == 9_999)
        #expect(
            throws: JSONError.contract(.root.appending(key: "entries"), "at most 10000 entries, got 10001")
        ) { try AgentOutboxDocument.decode(Self.document(entries: Array(repeating: entry, count: 10_001))) }
        let ids = { (count: Int) in (1...count).map { "\"d\($0)\"" }.joined(separator: ",") }
        let twoFiftySix = Array(
            (#"{"version":1,"baseURL":"x","entries":[],"retiredDraftIds":["# + ids(256) + "]}").utf8)
        #expect(try AgentOutboxDocument.decode(twoFiftySix).document.retiredDraftIds.count == 256)
        let tooMany = Array((#"{"version":1,"baseURL":"x","entries":[],"retiredDraftIds":["# + ids(257) + "]}").utf8)
        #expect(throws: JSONError.self) { try AgentOutboxDocument.decode(tooMany) }
    }

    @Test func anEntryNeedsItsMembersWithinTheirRanges() throws {
        #expect(try Self.problem(Self.entryJSON()) == nil)
        #expect(
            try Self.problem(Self.entryJSON(removing: ["attempts"]))
                == "entries[0].attempts: required member is missing")
        #expect(try Self.problem(Self.entryJSON(["bytes": #""aGVsbG8=""#])) != nil, "no bytes in the outbox")
        #expect(try Self.problem(Self.entryJSON(["requestId": #""""#])) != nil)
        #expect(try Self.problem(Self.entryJSON(["createdAt": "9007199254740991"])) == nil)
        #expect(try Self.problem(Self.entryJSON(["createdAt": "9007199254740992"])) != nil)
        #expect(try Self.problem(Self.entryJSON(["createdAt": "-1"])) != nil)
        #expect(try Self.problem(Self.entryJSON(["attempts": "1000000"])) == nil)
        #expect(try Self.problem(Self.entryJSON(["attempts": "1000001"])) != nil)
        #expect(try Self.problem(Self.entryJSON(["attempts": "-1"])) != nil)
        #expect(
            try Self.problem(Self.entryJSON(["text": #"" \n""#]))
                == "entries[0].text: must not be blank when there are no attachments")
        #expect(try Self.problem(Self.entryJSON(["draftId": #""""#])) != nil)
    }

    @Test func anEntryHoldsAtMostEightDistinctAttachments() throws {
        let attachment = { (id: String) in JSONWriter().string(from: agentAttachment(id).jsonValue) }
        let eight = (1...8).map { attachment("u\($0)") }
        #expect(try Self.problem(Self.entryJSON(["attachments": "[" + eight.joined(separator: ",") + "]"])) == nil)
        let nine = eight + [attachment("u9")]
        #expect(
            try Self.problem(Self.entryJSON(["attachments": "[" + nine.joined(separator: ",") + "]"]))
                == "entries[0].attachments: at most 8 attachments per message")
        let twice = [attachment("u1"), attachment("u1")]
        #expect(
            try Self.problem(Self.entryJSON(["attachments": "[" + twice.joined(separator: ",") + "]"]))
                == "entries[0].attachments[1]: upload \"u1\" is listed twice")
    }

    @Test func anEntrysMembersAgreeWithItsState() throws {
        let failure = #"{"kind":"interrupted","message":"reset"}"#
        let ack = #"{"messageId":"msg-1","cursor":"c-000001"}"#
        #expect(try Self.problem(Self.entryJSON(["state": #""failed""#, "attempts": "1", "failure": failure])) == nil)
        #expect(
            try Self.problem(Self.entryJSON(["state": #""failed""#, "attempts": "1"]))
                == "entries[0].failure: must be present exactly when the state is \"failed\"")
        #expect(try Self.problem(Self.entryJSON(["failure": failure])) != nil, "a queued entry has no failure")
        #expect(
            try Self.problem(Self.entryJSON(["state": #""failed""#, "attempts": "0", "failure": failure]))
                == "entries[0].attempts: must be at least 1 in state \"failed\"")
        #expect(try Self.problem(Self.entryJSON(["state": #""sending""#, "attempts": "0"])) != nil)
        #expect(try Self.problem(Self.entryJSON(["state": #""sending""#, "attempts": "1"])) == nil)
        #expect(
            try Self.problem(Self.entryJSON(["state": #""awaiting-echo""#, "attempts": "1"]))
                == "entries[0].acknowledgement: is required in state \"awaiting-echo\"")
        #expect(
            try Self.problem(Self.entryJSON(["state": #""awaiting-echo""#, "attempts": "1", "acknowledgement": ack]))
                == nil)
        #expect(try Self.problem(Self.entryJSON(["state": #""confirmed""#, "acknowledgement": ack])) == nil)
        #expect(try Self.problem(Self.entryJSON(["acknowledgement": ack])) != nil, "a queued entry has no receipt")
        #expect(
            try Self.problem(
                Self.entryJSON([
                    "state": #""awaiting-echo""#, "attempts": "1",
                    "acknowledgement": #"{"messageId":"msg-1","cursor":"c 1"}"#,
                ])) != nil)
    }

    @Test func aStoredFailureKeepsItsFieldsWithinTheirRanges() throws {
        func failure(_ json: String) throws -> String? {
            try Self.problem(Self.entryJSON(["state": #""failed""#, "attempts": "1", "failure": json]))
        }
        #expect(
            try failure(
                #"{"kind":"rate-limited","message":"Slow down.","status":429,"code":"rate_limited","retryAfterSeconds":86400}"#
            ) == nil)
        #expect(try failure(#"{"kind":"rate-limited","message":"m","retryAfterSeconds":86401}"#) != nil)
        #expect(try failure(#"{"kind":"other","message":"m","status":599}"#) == nil)
        #expect(try failure(#"{"kind":"other","message":"m","status":600}"#) != nil)
        #expect(try failure(#"{"kind":"other","message":"m","status":99}"#) != nil)
        #expect(try failure(#"{"kind":"lost","message":"m"}"#) != nil)
        #expect(try failure(#"{"kind":"other","message":" "}"#) != nil)
        #expect(try failure(#"{"kind":"other","message":"\#(String(repeating: "m", count: 1_000))"}"#) == nil)
        #expect(try failure(#"{"kind":"other","message":"\#(String(repeating: "m", count: 1_001))"}"#) != nil)
        #expect(
            try failure(#"{"kind":"unavailable","message":"m","quota":{"usedBytes":1,"limitBytes":2}}"#) == nil)
        #expect(try failure(#"{"kind":"unavailable","message":"m","quota":{"usedBytes":1}}"#) != nil)
    }

    @Test func aRequestIdOrDraftIdAppearsOnce() throws {
        let first = Self.entryJSON(["draftId": #""d1""#])
        let sameRequest = Self.entryJSON(["text": #""again""#])
        let sameDraft = Self.entryJSON(["requestId": #""req-2""#, "draftId": #""d1""#])
        let (document, problems) = try AgentOutboxDocument.decode(
            Self.document(entries: [first, sameRequest, sameDraft]))
        #expect(document.entries.map(\.requestId) == ["req-1"])
        #expect(
            problems.map(\.description) == [
                "entries[1].requestId: request id \"req-1\" appears more than once",
                "entries[2].draftId: draft id \"d1\" appears more than once",
            ])
    }

    @Test func everyFailureAServerCanCauseIsStoredSoItReadsBack() throws {
        // A failed entry whose failure would not decode would leave the outbox at the next launch.
        let errors: [AgentRoomError] = [
            .rejected(status: 500, error: APIErrorBody(message: " "), retryAfterSeconds: nil),
            .rejected(status: 429, error: APIErrorBody(message: "slow down", code: ""), retryAfterSeconds: 86_401),
            .rejected(status: 999, error: APIErrorBody(message: "odd status"), retryAfterSeconds: nil),
            .rejected(status: 42, error: APIErrorBody(message: ""), retryAfterSeconds: -1),
            .rejected(
                status: 409, error: APIErrorBody(message: String(repeating: "x", count: 5_000)), retryAfterSeconds: nil),
            .transport(""), .notSent(""), .malformedAnswer(""), .integrity(" "),
        ]
        let entries = errors.enumerated().map { index, error in
            AgentOutboxEntry(
                requestId: "r-\(index)", text: "hi", createdAt: 1, state: .failed,
                failure: AgentOutboxFailure.from(error), attempts: 1)
        }
        let bytes = AgentOutboxDocument(baseURL: "http://h/api", entries: entries).encoded()
        let (document, problems) = try AgentOutboxDocument.decode(bytes)
        #expect(problems.isEmpty, "\(problems)")
        #expect(document.entries == entries)
        #expect(entries[0].failure?.message == "The server gave no reason (HTTP 500).")
        #expect(entries[1].failure?.code == nil && entries[1].failure?.retryAfterSeconds == nil)
        #expect(entries[2].failure?.status == nil)
    }

    /// A request no connection was made for never reached the server: its bubble says so
    /// instead of "may or may not have arrived", and Retry may send it (issue 28).
    @Test func aMessageThatNeverLeftSaysSoAndCanBeRetried() {
        let never = AgentOutboxFailure.from(.notSent("POST agent/messages: no connection within 0.05 seconds"))
        #expect(never.kind == .notSent)
        #expect(never.canRetry)
        #expect(
            never.description
                == "POST agent/messages: no connection within 0.05 seconds. It never reached the server; Retry sends it."
        )
        let unknown = AgentOutboxFailure.from(.transport("POST agent/messages: the connection was reset"))
        #expect(unknown.kind == .interrupted)
        #expect(unknown.description.contains("It may or may not have arrived"))
        #expect(!AgentRoomError.notSent("x").isAmbiguous)
    }
}
