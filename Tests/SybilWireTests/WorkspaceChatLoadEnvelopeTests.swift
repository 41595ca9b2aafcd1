import Foundation
import SybilCore
import SybilWire
import Testing

/// Every rule of the envelope contract (SPEC §3), one rejection each, naming the field.
@Suite("Workspace chat load envelope", .timeLimit(.minutes(2)))
struct WorkspaceChatLoadEnvelopeTests {
    typealias Step = JSONEdit.Step

    private func decode(_ value: JSONValue) throws(JSONError) -> WorkspaceChatLoadEnvelope {
        try WorkspaceChatLoadEnvelope.decode(value, at: .root)
    }

    /// Decodes `value` expecting a contract error at `path` whose message contains `fragment`.
    private func expectRejection(
        _ value: JSONValue, at path: String, _ fragment: String, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        do {
            let envelope = try decode(value)
            Issue.record("accepted an invalid envelope: \(envelope)", sourceLocation: sourceLocation)
        } catch {
            #expect(error.kind == .contract, "\(error)", sourceLocation: sourceLocation)
            #expect(error.path.description == path, "\(error)", sourceLocation: sourceLocation)
            #expect(error.message.contains(fragment), "\(error)", sourceLocation: sourceLocation)
        }
    }

    private func edited(_ steps: [Step], _ newValue: JSONValue?) -> JSONValue {
        JSONEdit.setting(EnvelopeFixture.valid, steps, to: newValue)
    }

    @Test func decodesTheValidFixture() throws {
        let envelope = try decode(EnvelopeFixture.valid)
        #expect(envelope.boundaryToken == "b-17")
        #expect(envelope.codexSessionId == "sess-1")
        #expect(envelope.loadState == .ready)
        #expect(envelope.loadedEntries == 3)
        #expect(envelope.hasOlderEntries)
        #expect(envelope.oldestCursor == "c-100")
        #expect(envelope.timeline.map(\.id) == ["row-1", "row-2", "row-3"])
        #expect(envelope.timeline.map(\.type) == [.user, .thinking, .agentReply])
        #expect(envelope.timeline[0].sourceOrder == [1, 0])
        #expect(envelope.timeline[0].timestamp == 1_764_400_000_000)
        #expect(envelope.liveOverlay.settlementEpoch == 4)
        #expect(envelope.liveOverlay.revision == 2)
        #expect(
            envelope.liveOverlay.blocks.map(\.identity) == [
                .operation("op-5"), .runRow(runId: "run-9", rowId: "live-2"),
            ])
        #expect(envelope.runtime?["model"] == "m")
        #expect(envelope.activeRun?.runId == "run-9")
        #expect(envelope.activeRun?.members["startedAt"] == 1_764_400_000_250)
    }

    @Test func roundTripsThroughItsJSON() throws {
        let envelope = try decode(EnvelopeFixture.valid)
        let text = JSONWriter().string(from: envelope.jsonValue)
        let again = try WorkspaceChatLoadEnvelope.decode(json: Array(text.utf8))
        #expect(again == envelope)
        #expect(envelope.jsonValue == EnvelopeFixture.valid, "normalised output keeps contract order and values")
    }

    @Test func nullableMembersDecodeAsNil() throws {
        var value = EnvelopeFixture.valid
        for key in ["codexSessionId", "runtime", "activeRun"] {
            JSONEdit.set(&value, [.key(key)], to: .null)
        }
        JSONEdit.set(&value, [.key("hasOlderEntries")], to: false)
        JSONEdit.set(&value, [.key("oldestCursor")], to: .null)
        let envelope = try decode(value)
        #expect(envelope.codexSessionId == nil)
        #expect(envelope.runtime == nil)
        #expect(envelope.activeRun == nil)
        #expect(envelope.oldestCursor == nil)
    }

    @Test("a missing key fails, also when its value may be null", arguments: WorkspaceChatLoadEnvelope.keys)
    func missingKey(key: String) {
        expectRejection(edited([.key(key)], nil), at: key, "required member is missing")
    }

    @Test func extraKeyFails() {
        expectRejection(edited([.key("schemaVersion")], 2), at: "schemaVersion", "unexpected member")
    }

    @Test func duplicateKeyFails() throws {
        let text = EnvelopeFixture.validText.replacingFirst(
            #""boundaryToken": "b-17","#, with: #""boundaryToken": "b-17", "boundaryToken": "b-18","#)
        let error = try #require(throws: JSONError.self) {
            try WorkspaceChatLoadEnvelope.decode(json: Array(text.utf8))
        }
        #expect(error.path.description == "boundaryToken")
        #expect(error.message.contains("duplicate key"))
    }

    @Test(
        "null where a value is required fails",
        arguments: [
            "boundaryToken", "loadState", "storageFormat", "loadedEntries", "hasOlderEntries", "timeline",
            "liveOverlay",
        ])
    func nullRequired(key: String) {
        expectRejection(edited([.key(key)], .null), at: key, "got null")
    }

    @Test("a blank boundaryToken fails", arguments: ["", " ", "\t\n"])
    func blankBoundaryToken(token: String) {
        expectRejection(edited([.key("boundaryToken")], .string(token)), at: "boundaryToken", "non-blank")
    }

    @Test("storageFormat other than indexed fails", arguments: ["flat", "Indexed", ""])
    func storageFormat(format: String) {
        expectRejection(edited([.key("storageFormat")], .string(format)), at: "storageFormat", #"only "indexed""#)
    }

    @Test func loadedEntriesBoundaries() throws {
        for good in ["0", "1", "9007199254740991"] {
            #expect(throws: Never.self) { try decode(edited([.key("loadedEntries")], JSONEdit.number(good))) }
        }
        for bad in ["-1", "9007199254740992", "3.0", "3e0"] {
            expectRejection(edited([.key("loadedEntries")], JSONEdit.number(bad)), at: "loadedEntries", bad)
        }
    }

    @Test func olderEntriesNeedACursor() {
        expectRejection(edited([.key("oldestCursor")], .null), at: "oldestCursor", "hasOlderEntries is true")
    }

    @Test func loadStateIsTyped() throws {
        let unavailable = edited([.key("loadState")], ["state": "unavailable", "reason": "desktop asleep"])
        #expect(try decode(unavailable).loadState == .unavailable(reason: "desktop asleep"))
        #expect(try decode(edited([.key("loadState")], ["state": "loading"])).loadState == .loading)
        expectRejection(edited([.key("loadState")], ["state": "gone"]), at: "loadState.state", "is not one of")
        expectRejection(edited([.key("loadState")], ["state": "unavailable"]), at: "loadState.reason", "missing")
        expectRejection(
            edited([.key("loadState")], ["state": "unavailable", "reason": " "]), at: "loadState.reason", "non-blank")
        expectRejection(
            edited([.key("loadState")], ["state": "ready", "reason": "x"]), at: "loadState.reason", "unexpected")
        expectRejection(edited([.key("loadState")], "ready"), at: "loadState", "expected an object")
    }

    @Test func runtimeAndActiveRunMustBeObjectsOrNull() {
        expectRejection(edited([.key("runtime")], "x"), at: "runtime", "object or null")
        expectRejection(edited([.key("activeRun")], [1]), at: "activeRun", "expected an object")
        expectRejection(edited([.key("activeRun")], ["startedAt": 1]), at: "activeRun.runId", "missing")
    }

    // MARK: timeline rows

    private func row(_ index: Int, _ key: String, _ value: JSONValue?) -> JSONValue {
        edited([.key("timeline"), .index(index), .key(key)], value)
    }

    @Test("row type outside the set fails", arguments: ["assistant", "User", "", "tool"])
    func rowType(type: String) {
        expectRejection(row(1, "type", .string(type)), at: "timeline[1].type", "is not one of")
    }

    @Test func everyRowTypeIsAccepted() throws {
        for type in TimelineRowType.allCases {
            let envelope = try decode(row(2, "type", .string(type.rawValue)))
            #expect(envelope.timeline[2].type == type)
        }
    }

    @Test func emptyRowIdFails() {
        expectRejection(row(0, "id", ""), at: "timeline[0].id", "non-empty")
    }

    @Test("row origin outside the set fails", arguments: ["server", "Live", ""])
    func rowOrigin(origin: String) {
        expectRejection(row(0, "origin", .string(origin)), at: "timeline[0].origin", "is not one of")
    }

    @Test func sourceOrderRules() {
        expectRejection(row(0, "sourceOrder", []), at: "timeline[0].sourceOrder", "non-empty")
        expectRejection(row(0, "sourceOrder", [1, -1]), at: "timeline[0].sourceOrder[1]", "-1")
        expectRejection(row(0, "sourceOrder", [JSONEdit.number("1.5")]), at: "timeline[0].sourceOrder[0]", "1.5")
        expectRejection(row(0, "sourceOrder", [JSONEdit.number("1.0")]), at: "timeline[0].sourceOrder[0]", "1.0")
        expectRejection(row(0, "sourceOrder", ["1"]), at: "timeline[0].sourceOrder[0]", "got a string")
        expectRejection(row(0, "sourceOrder", 1), at: "timeline[0].sourceOrder", "expected an array")
    }

    @Test func sourceOrderAcceptsTheFullUnsignedRange() throws {
        let value = row(0, "sourceOrder", [0, JSONEdit.number("18446744073709551615")])
        #expect(try decode(value).timeline[0].sourceOrder == [0, .max])
        expectRejection(
            row(0, "sourceOrder", [JSONEdit.number("18446744073709551616")]), at: "timeline[0].sourceOrder[0]",
            "18446744073709551616")
    }

    @Test func timestampMustBeAnInteger() {
        expectRejection(
            row(2, "timestamp", JSONEdit.number("1764400000200.5")), at: "timeline[2].timestamp", "fraction")
        expectRejection(row(2, "timestamp", JSONEdit.number("1.7644e12")), at: "timeline[2].timestamp", "exponent")
        expectRejection(row(2, "timestamp", "1764400000200"), at: "timeline[2].timestamp", "got a string")
        expectRejection(row(2, "timestamp", nil), at: "timeline[2].timestamp", "missing")
    }

    @Test func rowTextMustBeAString() {
        expectRejection(row(2, "text", .null), at: "timeline[2].text", "got null")
    }

    @Test func unknownRowKeyFails() {
        expectRejection(row(2, "color", "red"), at: "timeline[2].color", "unexpected member")
    }

    @Test func liveRowWithoutRunIdFails() {
        let value = edited([.key("liveOverlay"), .key("blocks"), .index(1), .key("runId")], nil)
        expectRejection(value, at: "liveOverlay.blocks[1].runId", "a live row needs a runId")
        let inTimeline = row(2, "origin", "live")
        expectRejection(inTimeline, at: "timeline[2].runId", "a live row needs a runId")
    }

    @Test func liveUserRowWithoutOperationIdFails() {
        let value = edited([.key("liveOverlay"), .key("blocks"), .index(0), .key("operationId")], nil)
        expectRejection(value, at: "liveOverlay.blocks[0].operationId", "a live user row needs an operationId")
    }

    @Test func canonicalRowsNeedNeitherRunNorOperation() throws {
        let envelope = try decode(EnvelopeFixture.valid)
        #expect(envelope.timeline[0].runId == nil && envelope.timeline[0].operationId == nil)
    }

    @Test func duplicateSpliceKeyFailsTheWholePage() {
        let value = row(2, "id", "row-1")
        expectRejection(value, at: "timeline[2]", "duplicate splice key row:row-1")
    }

    @Test func sameIdUnderDifferentIdentitiesIsNotADuplicate() throws {
        // A canonical row and a live row of a run may share a row id: their typed identities differ.
        var value = EnvelopeFixture.valid
        JSONEdit.set(&value, [.key("liveOverlay"), .key("blocks"), .index(1), .key("id")], to: "row-3")
        #expect(throws: Never.self) { try decode(value) }
    }

    // MARK: live overlay

    private func overlay(_ key: String, _ value: JSONValue?) -> JSONValue {
        edited([.key("liveOverlay"), .key(key)], value)
    }

    @Test(
        "overlay epoch and revision accept exactly the safe integer range", arguments: ["settlementEpoch", "revision"])
    func overlayIntegerBoundaries(key: String) throws {
        for good in ["9007199254740990", "9007199254740991", "1"] {
            #expect(throws: Never.self, "\(key)=\(good)") { try decode(overlay(key, JSONEdit.number(good))) }
        }
        if key == "settlementEpoch" {
            for good in ["-9007199254740991", "-9007199254740990", "0"] {
                #expect(throws: Never.self, "\(key)=\(good)") { try decode(overlay(key, JSONEdit.number(good))) }
            }
        }
        for bad in ["9007199254740992", "-9007199254740992", "18446744073709551616"] {
            expectRejection(overlay(key, JSONEdit.number(bad)), at: "liveOverlay.\(key)", "is outside")
        }
        for bad in ["2.0", "2e0", "2.5", "1E1"] {
            expectRejection(
                overlay(key, JSONEdit.number(bad)), at: "liveOverlay.\(key)", "without fraction or exponent")
        }
        expectRejection(overlay(key, "2"), at: "liveOverlay.\(key)", "got a string")
    }

    @Test func revisionZeroCarriesNoBlocks() throws {
        expectRejection(overlay("revision", 0), at: "liveOverlay.blocks", "revision 0 carries no blocks, got 2")
        var empty = overlay("revision", 0)
        JSONEdit.set(&empty, [.key("liveOverlay"), .key("blocks")], to: [])
        #expect(try decode(empty).liveOverlay == LiveOverlay(settlementEpoch: 4, revision: 0, blocks: []))
    }

    @Test func overlayBlocksMustBeLive() {
        let value = edited([.key("liveOverlay"), .key("blocks"), .index(1), .key("origin")], "canonical")
        expectRejection(value, at: "liveOverlay.blocks[1].origin", #"must have origin "live""#)
    }

    @Test func duplicateOverlayIdentityFails() {
        // Two live user rows with the same operation id have one typed identity.
        var value = EnvelopeFixture.valid
        JSONEdit.set(
            &value, [.key("liveOverlay"), .key("blocks"), .index(1)],
            to: [
                "type": "user", "id": "live-other", "origin": "live", "sourceOrder": [4], "timestamp": 1,
                "text": "x", "runId": "run-9", "operationId": "op-5",
            ])
        expectRejection(value, at: "liveOverlay.blocks[1]", "duplicate splice key operation:op-5")
    }

    @Test func overlayKeysAreExact() {
        expectRejection(overlay("extra", 1), at: "liveOverlay.extra", "unexpected member")
        expectRejection(overlay("blocks", nil), at: "liveOverlay.blocks", "missing")
        expectRejection(overlay("revision", nil), at: "liveOverlay.revision", "missing")
    }

    // MARK: documents

    @Test func malformedJSONIsASyntaxErrorWithOffset() throws {
        let text = EnvelopeFixture.validText.replacingFirst(#""loadedEntries": 3,"#, with: #""loadedEntries": 3,,"#)
        let error = try #require(throws: JSONError.self) {
            try WorkspaceChatLoadEnvelope.decode(json: Array(text.utf8))
        }
        #expect(error.kind == .syntax)
        #expect(error.offset != nil)
    }

    @Test func nonObjectDocumentsFail() {
        for value: JSONValue in [[], "envelope", .null, 1] {
            expectRejection(value, at: "$", "expected an object")
        }
    }

    @Test func limitsApply() throws {
        let error = try #require(throws: JSONError.self) {
            try WorkspaceChatLoadEnvelope.decode(
                json: Array(EnvelopeFixture.validText.utf8), limits: .init(maxBytes: 100))
        }
        #expect(error.kind == .limit)
    }
}

extension String {
    /// This string with the first occurrence of `target` replaced; the target must occur.
    func replacingFirst(_ target: String, with replacement: String) -> String {
        guard let range = range(of: target) else { preconditionFailure("\(target) not found") }
        return replacingCharacters(in: range, with: replacement)
    }
}
