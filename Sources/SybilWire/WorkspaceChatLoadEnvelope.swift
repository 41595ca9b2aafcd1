import SybilCore

/// The answer to loading a workspace chat's newest window (`run.codexChatLoad`), decoded
/// exactly (SPEC §3, seed 000 "Der Verlaufsumschlag wird exakt dekodiert").
///
/// The top level must have exactly the canonical keys; keys whose value may be null must
/// still be present. Invalid input is an error, never an empty but valid history.
public struct WorkspaceChatLoadEnvelope: Sendable, Hashable {
    /// Opaque token of the window's boundary; never blank.
    public var boundaryToken: String
    /// The desktop's agent session id, when it has one yet.
    public var codexSessionId: String?
    /// Whether history could be read.
    public var loadState: WorkspaceChatLoadState
    /// How many entries the window holds, as the desktop counts them.
    public var loadedEntries: Int64
    /// Whether older entries exist before this window.
    public var hasOlderEntries: Bool
    /// Cursor for `run.codexChatLoadPageBefore`; present whenever `hasOlderEntries` is true.
    public var oldestCursor: String?
    /// The window's rows, oldest first.
    public var timeline: [TimelineBlock]
    /// Live rows of running work.
    public var liveOverlay: LiveOverlay
    /// The desktop's runtime description, passed through unchanged.
    public var runtime: JSONObject?
    /// The run in progress, if any.
    public var activeRun: WorkspaceActiveRun?

    /// The canonical top-level keys, in contract order.
    public static let keys = [
        "boundaryToken", "codexSessionId", "loadState", "storageFormat", "loadedEntries", "hasOlderEntries",
        "oldestCursor", "timeline", "liveOverlay", "runtime", "activeRun",
    ]

    /// The only storage format this client reads.
    public static let storageFormat = "indexed"

    /// Creates an envelope; the caller is responsible for the contract.
    public init(
        boundaryToken: String, codexSessionId: String?, loadState: WorkspaceChatLoadState, loadedEntries: Int64,
        hasOlderEntries: Bool, oldestCursor: String?, timeline: [TimelineBlock], liveOverlay: LiveOverlay,
        runtime: JSONObject?, activeRun: WorkspaceActiveRun?
    ) {
        self.boundaryToken = boundaryToken
        self.codexSessionId = codexSessionId
        self.loadState = loadState
        self.loadedEntries = loadedEntries
        self.hasOlderEntries = hasOlderEntries
        self.oldestCursor = oldestCursor
        self.timeline = timeline
        self.liveOverlay = liveOverlay
        self.runtime = runtime
        self.activeRun = activeRun
    }

    /// Parses and decodes an envelope from JSON bytes: read straight from the bytes, without a
    /// JSON tree for the rows (``readingBytes(_:limits:)``); a document that reader refuses is
    /// read through the tree (``decode(_:at:)``), whose error names the path. Either way the
    /// answer is the tree decoder's (differential tests hold the two together).
    public static func decode(
        json bytes: [UInt8], limits: JSONReader.Limits = .standard
    ) throws(JSONError) -> WorkspaceChatLoadEnvelope {
        if let envelope = readingBytes(bytes, limits: limits) { return envelope }
        return try decode(try JSONReader(limits: limits).parse(bytes), at: .root)
    }

    /// Decodes and validates an envelope from a JSON tree: the reference decoder.
    public static func decode(_ value: JSONValue, at path: JSONPath) throws(JSONError) -> WorkspaceChatLoadEnvelope {
        let reader = try JSONObjectReader(value, at: path)
        try reader.requireExactKeys(keys)
        let boundaryToken = try reader.nonBlankString("boundaryToken")
        let codexSessionId = try reader.nullableString("codexSessionId")
        let loadState = try reader.decode("loadState", WorkspaceChatLoadState.decode)
        let storageFormat = try reader.string("storageFormat")
        guard storageFormat == Self.storageFormat else {
            throw .contract(
                path.appending(key: "storageFormat"),
                "only \"indexed\" is supported, got \(JSONWriter.quoted(storageFormat))")
        }
        let loadedEntries = try reader.integer("loadedEntries", in: 0...JSONValueReader.maxSafeInteger)
        let hasOlderEntries = try reader.bool("hasOlderEntries")
        let oldestCursor = try reader.nullableString("oldestCursor")
        if hasOlderEntries, oldestCursor == nil {
            throw .contract(path.appending(key: "oldestCursor"), "must be a string when hasOlderEntries is true")
        }
        let timeline = try reader.decode("timeline", TimelinePageDecoder.decodeBlocks)
        let liveOverlay = try reader.decode("liveOverlay", LiveOverlay.decode)
        let runtime = try reader.nullableObject("runtime")
        let activeRunValue = try reader.value("activeRun")
        let activeRun: WorkspaceActiveRun? =
            activeRunValue.isNull
            ? nil : try WorkspaceActiveRun.decode(activeRunValue, at: path.appending(key: "activeRun"))
        return WorkspaceChatLoadEnvelope(
            boundaryToken: boundaryToken, codexSessionId: codexSessionId, loadState: loadState,
            loadedEntries: loadedEntries, hasOlderEntries: hasOlderEntries, oldestCursor: oldestCursor,
            timeline: timeline, liveOverlay: liveOverlay, runtime: runtime, activeRun: activeRun)
    }

    /// The envelope as contract JSON, keys in contract order.
    public var jsonValue: JSONValue {
        .object(
            JSONObject([
                JSONMember("boundaryToken", .string(boundaryToken)),
                JSONMember("codexSessionId", codexSessionId.map(JSONValue.string) ?? .null),
                JSONMember("loadState", loadState.jsonValue),
                JSONMember("storageFormat", .string(Self.storageFormat)),
                JSONMember("loadedEntries", .number(JSONNumber(loadedEntries))),
                JSONMember("hasOlderEntries", .bool(hasOlderEntries)),
                JSONMember("oldestCursor", oldestCursor.map(JSONValue.string) ?? .null),
                JSONMember("timeline", .array(timeline.map(\.jsonValue))),
                JSONMember("liveOverlay", liveOverlay.jsonValue),
                JSONMember("runtime", runtime.map(JSONValue.object) ?? .null),
                JSONMember("activeRun", activeRun?.jsonValue ?? .null),
            ]))
    }
}
