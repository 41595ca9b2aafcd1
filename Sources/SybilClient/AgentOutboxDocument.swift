import SybilCore
import SybilWire

/// The stored form of an Agent room outbox, version 1: its base URL, its entries in order and
/// the drafts whose entries already left it.
///
/// ```json
/// {"version": 1, "baseURL": "http://127.0.0.1:8799/api",
///  "entries": [{"requestId": "…", "text": "…", "createdAt": 1764400200000, "attachments": [],
///               "state": "queued", "attempts": 0}],
///  "retiredDraftIds": ["draft-7"]}
/// ```
///
/// Decoding is strict: the frame (version, base URL, the two lists) must be exactly right or
/// the whole file is refused; an entry that breaks a rule is left out and reported (by JSON
/// path), so every readable entry survives.
public struct AgentOutboxDocument: Sendable, Hashable {
    /// The format version this build reads and writes.
    public static let version: Int64 = 1
    /// The largest outbox file read (bytes).
    public static let maxBytes = 32 << 20

    /// The normalized base URL (``AgentOutboxScope/baseURL``).
    public var baseURL: String
    /// The entries, in the order they were queued.
    public var entries: [AgentOutboxEntry]
    /// Drafts whose entries were removed (newest last).
    public var retiredDraftIds: [String]

    /// Creates a document.
    public init(baseURL: String, entries: [AgentOutboxEntry] = [], retiredDraftIds: [String] = []) {
        self.baseURL = baseURL
        self.entries = entries
        self.retiredDraftIds = retiredDraftIds
    }

    /// The document as JSON bytes.
    public func encoded() -> [UInt8] {
        Self.encoded(
            baseURL: baseURL, entries: entries.map(Self.encoded(entry:)), retiredDraftIds: retiredDraftIds)
    }

    /// One entry's JSON bytes, as ``encoded()`` writes it.
    static func encoded(entry: AgentOutboxEntry) -> [UInt8] {
        JSONWriter().bytes(from: entry.jsonValue)
    }

    /// The document from entries already encoded (by ``encoded(entry:)``), so that a writer
    /// re-encodes only the entries that changed.
    static func encoded(baseURL: String, entries: [[UInt8]], retiredDraftIds: [String]) -> [UInt8] {
        let writer = JSONWriter()
        var bytes = Array(#"{"version":\#(version),"baseURL":"#.utf8)
        bytes += writer.bytes(from: .string(baseURL))
        bytes += Array(#","entries":["#.utf8)
        bytes.reserveCapacity(bytes.count + entries.reduce(0) { $0 + $1.count + 1 } + 64)
        for (index, entry) in entries.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            bytes += entry
        }
        bytes += Array(#"],"retiredDraftIds":"#.utf8)
        bytes += writer.bytes(from: .array(retiredDraftIds.map { .string($0) }))
        bytes.append(UInt8(ascii: "}"))
        return bytes
    }

    /// Decodes stored bytes: the document and the entries that had to be left out, each with
    /// its reason. Throws when the frame itself is wrong (not JSON, an unknown version, a
    /// missing or extra member, more than ``AgentOutboxQueue/maxEntries`` entries).
    public static func decode(_ bytes: [UInt8]) throws(JSONError) -> (document: Self, problems: [JSONError]) {
        let value = try JSONReader(limits: JSONReader.Limits(maxDepth: 32, maxBytes: maxBytes)).parse(bytes)
        let reader = try JSONObjectReader(value, at: .root)
        // The version first: a newer format is reported as such, whatever else it holds.
        let version = try reader.integer("version")
        guard version == Self.version else {
            throw .contract(
                .root.appending(key: "version"), "only version \(Self.version) is understood, got \(version)")
        }
        try reader.requireExactKeys(["version", "baseURL", "entries", "retiredDraftIds"])
        let items = try reader.array("entries")
        guard items.count <= AgentOutboxQueue.maxEntries else {
            throw .contract(
                .root.appending(key: "entries"), "at most \(AgentOutboxQueue.maxEntries) entries, got \(items.count)")
        }
        let retiredPath = JSONPath.root.appending(key: "retiredDraftIds")
        let retiredItems = try reader.array("retiredDraftIds")
        guard retiredItems.count <= AgentOutboxQueue.maxRetiredDraftIds else {
            throw .contract(
                retiredPath, "at most \(AgentOutboxQueue.maxRetiredDraftIds) ids, got \(retiredItems.count)")
        }
        var retired: [String] = []
        for (index, item) in retiredItems.enumerated() {
            let id = try JSONValueReader.string(item, at: retiredPath.appending(index: index))
            guard !id.isEmpty else { throw .contract(retiredPath.appending(index: index), "must be a non-empty id") }
            retired.append(id)
        }
        var document = Self(baseURL: try reader.nonEmptyString("baseURL"), retiredDraftIds: retired)
        var problems: [JSONError] = []
        var requestIds = Set<String>()
        var draftIds = Set<String>()
        for (index, item) in items.enumerated() {
            let path = JSONPath.root.appending(key: "entries").appending(index: index)
            do throws(JSONError) {
                let entry = try AgentOutboxEntry.decode(item, at: path)
                guard requestIds.insert(entry.requestId).inserted else {
                    throw .contract(
                        path.appending(key: "requestId"),
                        "request id \(JSONWriter.quoted(entry.requestId)) appears more than once")
                }
                if let draftId = entry.draftId, !draftIds.insert(draftId).inserted {
                    throw .contract(
                        path.appending(key: "draftId"), "draft id \(JSONWriter.quoted(draftId)) appears more than once")
                }
                document.entries.append(entry)
            } catch {
                problems.append(error)
            }
        }
        return (document, problems)
    }
}
