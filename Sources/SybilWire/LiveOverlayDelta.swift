import SybilCore

/// An `overlay.delta` event's data (docs/api/workspaces.md): how the live overlay changed
/// from revision ``baseRevision`` to ``revision`` of the same settlement epoch, without
/// repeating the rows that did not change. ``blockIds`` is the new overlay's full row order;
/// ``blocks`` holds only the rows that are new or changed. Every other id names a row of the
/// base overlay, kept as it was.
public struct LiveOverlayDelta: Sendable, Hashable {
    /// The settlement epoch of both the base and the new overlay.
    public var settlementEpoch: Int64
    /// The new overlay's revision; greater than ``baseRevision``.
    public var revision: Int64
    /// The revision the delta applies to.
    public var baseRevision: Int64
    /// The new overlay's row ids, in order; unique.
    public var blockIds: [String]
    /// The new or changed rows; each id is one of ``blockIds``.
    public var blocks: [TimelineBlock]

    /// The members of the event's data.
    public static let keys = ["settlementEpoch", "revision", "baseRevision", "blockIds", "blocks"]

    /// Creates a delta; the caller is responsible for the contract.
    public init(
        settlementEpoch: Int64, revision: Int64, baseRevision: Int64, blockIds: [String], blocks: [TimelineBlock]
    ) {
        self.settlementEpoch = settlementEpoch
        self.revision = revision
        self.baseRevision = baseRevision
        self.blockIds = blockIds
        self.blocks = blocks
    }

    /// The delta from `base` to `overlay`, or `nil` when none can say it: another epoch, a
    /// revision that is not newer, or row ids that are not unique in either overlay (then the
    /// full overlay is sent). A row is unchanged when it equals the base's row of its id.
    public init?(from base: LiveOverlay, to overlay: LiveOverlay) {
        guard base.settlementEpoch == overlay.settlementEpoch, overlay.revision > base.revision else { return nil }
        var previous: [String: TimelineBlock] = [:]
        previous.reserveCapacity(base.blocks.count)
        for block in base.blocks {
            guard previous.updateValue(block, forKey: block.id) == nil else { return nil }
        }
        var seen = Set<String>()
        var changed: [TimelineBlock] = []
        for block in overlay.blocks {
            guard seen.insert(block.id).inserted else { return nil }
            if previous[block.id] != block { changed.append(block) }
        }
        self.init(
            settlementEpoch: overlay.settlementEpoch, revision: overlay.revision, baseRevision: base.revision,
            blockIds: overlay.blocks.map(\.id), blocks: changed)
    }

    /// The overlay this delta makes of `base`, or `nil` when it does not apply: `base` is not
    /// its epoch and base revision, its row ids are not unique, or an unchanged id is not a
    /// row of `base`.
    public func applied(to base: LiveOverlay) -> LiveOverlay? {
        guard base.settlementEpoch == settlementEpoch, base.revision == baseRevision else { return nil }
        var rows: [String: TimelineBlock] = [:]
        for block in base.blocks {
            guard rows.updateValue(block, forKey: block.id) == nil else { return nil }
        }
        for block in blocks { rows[block.id] = block }
        var result: [TimelineBlock] = []
        result.reserveCapacity(blockIds.count)
        for id in blockIds {
            guard let block = rows[id] else { return nil }
            result.append(block)
        }
        return LiveOverlay(settlementEpoch: settlementEpoch, revision: revision, blocks: result)
    }

    /// This delta followed by `next` as one delta from this one's base to `next`'s revision,
    /// or `nil` when `next` does not continue it (another epoch, or its base is not this
    /// revision). Rows that `next` drops are dropped; a row changed by both keeps `next`'s.
    public func followed(by next: LiveOverlayDelta) -> LiveOverlayDelta? {
        guard next.settlementEpoch == settlementEpoch, next.baseRevision == revision else { return nil }
        var newest: [String: TimelineBlock] = [:]
        for block in blocks { newest[block.id] = block }
        for block in next.blocks { newest[block.id] = block }
        return LiveOverlayDelta(
            settlementEpoch: settlementEpoch, revision: next.revision, baseRevision: baseRevision,
            blockIds: next.blockIds, blocks: next.blockIds.compactMap { newest[$0] })
    }

    /// Decodes and validates a delta: exact members, safe integers, a base below the revision,
    /// unique non-empty ids, changed rows that are live, unique and listed in `blockIds`, and
    /// no rows at revision 0. Whether the unchanged ids resolve is known only against the
    /// base (``applied(to:)``).
    public static func decode(_ value: JSONValue, at path: JSONPath) throws(JSONError) -> LiveOverlayDelta {
        let reader = try JSONObjectReader(value, at: path)
        try reader.requireExactKeys(keys)
        let epoch = try reader.integer("settlementEpoch", in: JSONValueReader.safeIntegerRange)
        let revision = try reader.integer("revision", in: JSONValueReader.safeIntegerRange)
        let baseRevision = try reader.integer("baseRevision", in: JSONValueReader.safeIntegerRange)
        guard baseRevision < revision else {
            throw .contract(
                path.appending(key: "baseRevision"), "must be below revision \(revision), got \(baseRevision)")
        }
        let idsPath = path.appending(key: "blockIds")
        var blockIds: [String] = []
        var listed = Set<String>()
        for (position, element) in try reader.array("blockIds").enumerated() {
            let id = try JSONValueReader.string(element, at: idsPath.appending(index: position))
            guard !id.isEmpty else { throw .contract(idsPath.appending(index: position), "must not be empty") }
            guard listed.insert(id).inserted else {
                throw .contract(idsPath.appending(index: position), "duplicate block id \(JSONWriter.quoted(id))")
            }
            blockIds.append(id)
        }
        if revision == 0, !blockIds.isEmpty {
            throw .contract(idsPath, "revision 0 carries no blocks, got \(blockIds.count)")
        }
        let blocksPath = path.appending(key: "blocks")
        let blocks = try reader.decode("blocks", TimelinePageDecoder.decodeBlocks)
        var changed = Set<String>()
        for (position, block) in blocks.enumerated() {
            let blockPath = blocksPath.appending(index: position)
            guard block.origin == .live else {
                throw .contract(
                    blockPath.appending(key: "origin"),
                    "every overlay block must have origin \"live\", got \(JSONWriter.quoted(block.origin.rawValue))")
            }
            guard listed.contains(block.id) else {
                throw .contract(blockPath.appending(key: "id"), "\(JSONWriter.quoted(block.id)) is not in blockIds")
            }
            guard changed.insert(block.id).inserted else {
                throw .contract(blockPath.appending(key: "id"), "duplicate block id \(JSONWriter.quoted(block.id))")
            }
        }
        return LiveOverlayDelta(
            settlementEpoch: epoch, revision: revision, baseRevision: baseRevision, blockIds: blockIds, blocks: blocks)
    }

    /// The delta as contract JSON.
    public var jsonValue: JSONValue {
        [
            "settlementEpoch": .number(JSONNumber(settlementEpoch)),
            "revision": .number(JSONNumber(revision)),
            "baseRevision": .number(JSONNumber(baseRevision)),
            "blockIds": .array(blockIds.map { .string($0) }),
            "blocks": .array(blocks.map(\.jsonValue)),
        ]
    }
}
