import SybilCore

/// The live rows of running work, laid over the confirmed timeline (SPEC §3).
public struct LiveOverlay: Sendable, Hashable {
    /// The settlement epoch the overlay belongs to; an exact integer within ±(2^53 − 1).
    public var settlementEpoch: Int64
    /// The overlay revision within its epoch; an exact integer within ±(2^53 − 1).
    public var revision: Int64
    /// The live rows; empty when the revision is 0.
    public var blocks: [TimelineBlock]

    /// Creates an overlay; the caller is responsible for the contract.
    public init(settlementEpoch: Int64, revision: Int64, blocks: [TimelineBlock]) {
        self.settlementEpoch = settlementEpoch
        self.revision = revision
        self.blocks = blocks
    }

    /// An overlay with nothing live yet.
    public static let empty = LiveOverlay(settlementEpoch: 0, revision: 0, blocks: [])

    /// Decodes and validates an overlay.
    public static func decode(_ value: JSONValue, at path: JSONPath) throws(JSONError) -> LiveOverlay {
        let reader = try JSONObjectReader(value, at: path)
        try reader.requireExactKeys(["settlementEpoch", "revision", "blocks"])
        let epoch = try reader.integer("settlementEpoch", in: JSONValueReader.safeIntegerRange)
        let revision = try reader.integer("revision", in: JSONValueReader.safeIntegerRange)
        let blocks = try reader.decode("blocks", TimelinePageDecoder.decodeBlocks)
        if revision == 0, !blocks.isEmpty {
            throw .contract(path.appending(key: "blocks"), "revision 0 carries no blocks, got \(blocks.count)")
        }
        for (position, block) in blocks.enumerated() where block.origin != .live {
            throw .contract(
                path.appending(key: "blocks").appending(index: position).appending(key: "origin"),
                "every overlay block must have origin \"live\", got \(JSONWriter.quoted(block.origin.rawValue))")
        }
        return LiveOverlay(settlementEpoch: epoch, revision: revision, blocks: blocks)
    }

    /// The overlay as contract JSON.
    public var jsonValue: JSONValue {
        [
            "settlementEpoch": .number(JSONNumber(settlementEpoch)),
            "revision": .number(JSONNumber(revision)),
            "blocks": .array(blocks.map(\.jsonValue)),
        ]
    }
}
