import SybilCore
import SybilWire
import Testing

/// `overlay.delta`: made from two overlays, applied only to its base, joined with the next
/// one, and decoded as strictly as a whole overlay.
@Suite("Live overlay delta", .timeLimit(.minutes(2)))
struct LiveOverlayDeltaTests {
    private static func row(_ id: String, _ text: String, type: TimelineRowType = .agentReply) -> TimelineBlock {
        TimelineBlock(
            type: type, id: id, origin: .live, sourceOrder: [1, 2], timestamp: 1_764_400_000_000, text: text,
            runId: "run-1", operationId: type == .user ? "op-\(id)" : nil)
    }

    private static let user = row("u", String(repeating: "long user text ", count: 1000), type: .user)
    private static let base = LiveOverlay(settlementEpoch: 3, revision: 4, blocks: [user, row("t", "thinking")])

    private func decode(_ text: String) throws -> LiveOverlayDelta {
        try LiveOverlayDelta.decode(JSONReader().parse(Array(text.utf8)), at: .root)
    }

    private func delta(
        epoch: String = "3", revision: String = "5", base: String = "4", ids: String = #"["u","r"]"#,
        blocks: String? = nil
    ) -> String {
        let blocks = blocks ?? "[\(JSONWriter().string(from: Self.row("r", "Hel").jsonValue))]"
        return
            #"{"settlementEpoch":\#(epoch),"revision":\#(revision),"baseRevision":\#(base),"blockIds":\#(ids),"blocks":\#(blocks)}"#
    }

    @Test func aDeltaCarriesOnlyNewAndChangedRowsAndRebuildsTheOverlay() throws {
        let next = LiveOverlay(
            settlementEpoch: 3, revision: 5, blocks: [Self.user, Self.row("t", "thinking more"), Self.row("r", "Hi")])
        let delta = try #require(LiveOverlayDelta(from: Self.base, to: next))
        #expect(delta.baseRevision == 4 && delta.revision == 5)
        #expect(delta.blockIds == ["u", "t", "r"])
        #expect(delta.blocks.map(\.id) == ["t", "r"], "the long user row is not repeated")
        #expect(delta.applied(to: Self.base) == next)
        // Through the wire and back.
        let event = WorkspaceEvent.overlayDelta(delta)
        #expect(event.name == "overlay.delta")
        #expect(try WorkspaceEvent.decode(name: event.name, data: Array(event.dataText.utf8)) == event)
        #expect(event.dataText.utf8.count < 1000, "\(event.dataText.utf8.count) bytes")
        // A removed row is simply absent from the order.
        let fewer = LiveOverlay(settlementEpoch: 3, revision: 6, blocks: [Self.row("r", "Hi")])
        let removal = try #require(LiveOverlayDelta(from: next, to: fewer))
        #expect(removal.blocks.isEmpty && removal.blockIds == ["r"])
        #expect(removal.applied(to: next) == fewer)
    }

    @Test func noDeltaAcrossEpochsForAnOlderRevisionOrAmbiguousIds() {
        let sameRevision = LiveOverlay(settlementEpoch: 3, revision: 4, blocks: [])
        #expect(LiveOverlayDelta(from: Self.base, to: sameRevision) == nil)
        #expect(LiveOverlayDelta(from: Self.base, to: LiveOverlay(settlementEpoch: 3, revision: 5, blocks: [])) != nil)
        #expect(LiveOverlayDelta(from: Self.base, to: LiveOverlay(settlementEpoch: 4, revision: 5, blocks: [])) == nil)
        let twice = LiveOverlay(settlementEpoch: 3, revision: 5, blocks: [Self.row("r", "a"), Self.row("r", "b")])
        #expect(LiveOverlayDelta(from: Self.base, to: twice) == nil)
        let ambiguousBase = LiveOverlay(
            settlementEpoch: 3, revision: 4, blocks: [Self.row("r", "a"), Self.row("r", "b")])
        #expect(
            LiveOverlayDelta(from: ambiguousBase, to: LiveOverlay(settlementEpoch: 3, revision: 5, blocks: [])) == nil)
    }

    @Test func itAppliesOnlyToItsBaseAndEveryIdMustResolve() throws {
        let parsed = try decode(delta())
        #expect(parsed.applied(to: Self.base)?.blocks.map(\.id) == ["u", "r"])
        var other = Self.base
        other.revision = 3  // one below the base
        #expect(parsed.applied(to: other) == nil)
        other.revision = 5  // one above
        #expect(parsed.applied(to: other) == nil)
        other = Self.base
        other.settlementEpoch = 2
        #expect(parsed.applied(to: other) == nil)
        // "x" is neither carried nor a row of the base.
        let unresolvable = try decode(delta(ids: #"["u","x","r"]"#))
        #expect(unresolvable.applied(to: Self.base) == nil)
    }

    @Test func consecutiveDeltasJoinIntoOneFromTheFirstBase() throws {
        let second = LiveOverlay(
            settlementEpoch: 3, revision: 5, blocks: [Self.user, Self.row("t", "thinking"), Self.row("r", "H")])
        let third = LiveOverlay(settlementEpoch: 3, revision: 6, blocks: [Self.user, Self.row("r", "Hi")])
        let first = try #require(LiveOverlayDelta(from: Self.base, to: second))
        let next = try #require(LiveOverlayDelta(from: second, to: third))
        let joined = try #require(first.followed(by: next))
        #expect(joined.baseRevision == 4 && joined.revision == 6)
        #expect(joined.blocks.map(\.text) == ["Hi"], "the dropped row and the older text are gone")
        #expect(joined.applied(to: Self.base) == third)
        #expect(next.followed(by: first) == nil, "out of order")
        var otherEpoch = next
        otherEpoch.settlementEpoch = 4
        #expect(first.followed(by: otherEpoch) == nil)
    }

    @Test func integersAreSafeAndTheBaseIsBelowTheRevision() throws {
        let max = "9007199254740991"
        _ = try decode(delta(revision: max, base: "9007199254740990"))
        _ = try decode(delta(epoch: "-\(max)"))
        expectContractRejection(at: "settlementEpoch", "9007199254740992") {
            try decode(delta(epoch: "9007199254740992"))
        }
        expectContractRejection(at: "revision", "9007199254740992") { try decode(delta(revision: "9007199254740992")) }
        expectContractRejection(at: "baseRevision", "-9007199254740992") {
            try decode(delta(base: "-9007199254740992"))
        }
        expectContractRejection(at: "baseRevision", "must be below revision 5") { try decode(delta(base: "5")) }
        _ = try decode(delta(base: "4"))
        expectContractRejection(at: "revision", "fraction") { try decode(delta(revision: "5.0")) }
        expectContractRejection(at: "baseRevision", "got a string") { try decode(delta(base: "\"4\"")) }
    }

    @Test func membersAreExactAndIdsUniqueListedAndLive() throws {
        expectContractRejection(at: "extra", "unexpected member") {
            try decode(delta().replacingOccurrences(of: #""blocks":"#, with: #""extra":1,"blocks":"#))
        }
        expectContractRejection(at: "blockIds", "required member is missing") {
            try decode(#"{"settlementEpoch":3,"revision":5,"baseRevision":4,"blocks":[]}"#)
        }
        expectContractRejection(at: "blockIds[1]", "duplicate block id \"u\"") { try decode(delta(ids: #"["u","u"]"#)) }
        expectContractRejection(at: "blockIds[0]", "must not be empty") { try decode(delta(ids: #"[""]"#)) }
        expectContractRejection(at: "blockIds[0]", "expected a string") { try decode(delta(ids: "[1]")) }
        expectContractRejection(at: "blockIds", "expected an array") { try decode(delta(ids: #""u""#)) }
        expectContractRejection(at: "blocks[0].id", "\"r\" is not in blockIds") { try decode(delta(ids: #"["u"]"#)) }
        let row = JSONWriter().string(from: Self.row("r", "Hel").jsonValue)
        let sameIdOtherRun = row.replacingOccurrences(of: "run-1", with: "run-2")
        expectContractRejection(at: "blocks[1].id", "duplicate block id \"r\"") {
            try decode(delta(blocks: "[\(row),\(sameIdOtherRun)]"))
        }
        let canonical = JSONWriter().string(
            from: TimelineBlock(
                type: .agentReply, id: "r", origin: .canonical, sourceOrder: [1], timestamp: 1, text: ""
            )
            .jsonValue)
        expectContractRejection(at: "blocks[0].origin", "origin \"live\"") {
            try decode(delta(blocks: "[\(canonical)]"))
        }
        expectContractRejection(at: "blockIds", "revision 0 carries no blocks") {
            try decode(delta(revision: "0", base: "-1", blocks: "[]"))
        }
        _ = try decode(delta(revision: "0", base: "-1", ids: "[]", blocks: "[]"))
        expectContractRejection(at: "data.blockIds[1]", "duplicate") {
            try WorkspaceEvent.decode(name: "overlay.delta", data: Array(delta(ids: #"["u","u"]"#).utf8))
        }
    }
}
