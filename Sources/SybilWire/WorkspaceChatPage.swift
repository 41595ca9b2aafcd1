import SybilCore

/// A page of older rows (`run.codexChatLoadPageBefore`) or of a subagent thread
/// (`run.codexChatLoadThread`, `run.codexChatLoadThreadPageBefore`), decoded by the same
/// page decoder as the newest window.
public struct WorkspaceChatPage: Sendable, Hashable {
    /// Which RPC answered, which fixes the page's key set.
    public enum Kind: Sendable, Hashable {
        /// An older page of the parent chat: `timeline`, `hasOlderEntries`, `oldestCursor`.
        case olderPage
        /// A page of a subagent thread: the same keys plus `threadId`.
        case threadPage
    }

    /// The thread the page belongs to, for thread pages.
    public var threadId: String?
    /// The rows, oldest first.
    public var timeline: [TimelineBlock]
    /// Whether still older rows exist.
    public var hasOlderEntries: Bool
    /// Cursor for the next older page; present whenever `hasOlderEntries` is true.
    public var oldestCursor: String?

    /// Creates a page; the caller is responsible for the contract.
    public init(threadId: String?, timeline: [TimelineBlock], hasOlderEntries: Bool, oldestCursor: String?) {
        self.threadId = threadId
        self.timeline = timeline
        self.hasOlderEntries = hasOlderEntries
        self.oldestCursor = oldestCursor
    }

    /// Parses and decodes a page from JSON bytes.
    public static func decode(json bytes: [UInt8], kind: Kind) throws(JSONError) -> WorkspaceChatPage {
        try decode(try JSONReader().parse(bytes), at: .root, kind: kind)
    }

    /// Decodes and validates a page.
    public static func decode(_ value: JSONValue, at path: JSONPath, kind: Kind) throws(JSONError) -> WorkspaceChatPage
    {
        let reader = try JSONObjectReader(value, at: path)
        var keys = ["timeline", "hasOlderEntries", "oldestCursor"]
        if kind == .threadPage { keys.insert("threadId", at: 0) }
        try reader.requireExactKeys(keys)
        let threadId = kind == .threadPage ? try reader.nonEmptyString("threadId") : nil
        let hasOlderEntries = try reader.bool("hasOlderEntries")
        let oldestCursor = try reader.nullableString("oldestCursor")
        if hasOlderEntries, oldestCursor == nil {
            throw .contract(path.appending(key: "oldestCursor"), "must be a string when hasOlderEntries is true")
        }
        let timeline = try reader.decode("timeline", TimelinePageDecoder.decodeBlocks)
        return WorkspaceChatPage(
            threadId: threadId, timeline: timeline, hasOlderEntries: hasOlderEntries, oldestCursor: oldestCursor)
    }

    /// The page as contract JSON.
    public var jsonValue: JSONValue {
        var members: [JSONMember] = []
        if let threadId { members.append(JSONMember("threadId", .string(threadId))) }
        members.append(JSONMember("timeline", .array(timeline.map(\.jsonValue))))
        members.append(JSONMember("hasOlderEntries", .bool(hasOlderEntries)))
        members.append(JSONMember("oldestCursor", oldestCursor.map(JSONValue.string) ?? .null))
        return .object(JSONObject(members))
    }
}
