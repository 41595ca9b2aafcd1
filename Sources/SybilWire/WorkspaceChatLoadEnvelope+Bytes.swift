import SybilCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

extension WorkspaceChatLoadEnvelope {
    /// Reads an envelope straight from its bytes, without building a JSON tree for the rows:
    /// `nil` when the byte reader refuses the document (then ``decode(json:limits:)`` reads it
    /// through the tree, which words the error). It never accepts what the tree decoder
    /// refuses and, when it accepts, gives the same envelope (differential tests hold it to
    /// that); it may refuse what the tree accepts (a `-0` in `sourceOrder`), which then only
    /// costs the tree's time.
    static func readingBytes(_ bytes: [UInt8], limits: JSONReader.Limits) -> WorkspaceChatLoadEnvelope? {
        guard bytes.count <= limits.maxBytes else { return nil }
        return bytes.withUnsafeBufferPointer { buffer -> WorkspaceChatLoadEnvelope? in
            var scanner = ChatCompletionChunkScanner(
                bytes: buffer, maximumDepth: limits.maxDepth, ownedKeyBytes: [], scratch: [])
            return try? scanner.scanEnvelopeDocument(limits: limits)
        }
    }
}

extension ChatChunkScanFailure {
    /// The byte reader of the envelope refuses; the tree decoder words the error.
    static var refused: ChatChunkScanFailure {
        ChatChunkScanFailure(kind: .contract, offset: nil, message: "refused by the byte reader")
    }
}

/// The envelope's byte reader: the chat chunk scanner's cursor (every byte checked as
/// ``JSONReader`` checks it: grammar, UTF-8, escapes, nesting limit; strings, integers and
/// member names read in place) applied to the envelope's closed contract. Every rule of
/// ``WorkspaceChatLoadEnvelope/decode(_:at:)``, ``LiveOverlay/decode(_:at:)``,
/// ``TimelinePageDecoder`` and ``TimelineBlock/decode(_:at:)`` is checked; a breach throws
/// ``ChatChunkScanFailure/refused`` without a path, since the tree decoder words it.
/// `loadState`, `runtime` and `activeRun` are small: they are checked in place, parsed from
/// their bytes and decoded by their tree decoders.
extension ChatCompletionChunkScanner {
    private static let envelopeKeys: [StaticString] = [
        "boundaryToken", "codexSessionId", "loadState", "storageFormat", "loadedEntries", "hasOlderEntries",
        "oldestCursor", "timeline", "liveOverlay", "runtime", "activeRun",
    ]
    private static let overlayKeys: [StaticString] = ["settlementEpoch", "revision", "blocks"]
    private static let rowKeys: [StaticString] = [
        "type", "id", "origin", "sourceOrder", "timestamp", "text", "runId", "operationId", "subagentThreadId",
    ]

    mutating func scanEnvelopeDocument(limits: JSONReader.Limits) throws(ChatChunkScanFailure)
        -> WorkspaceChatLoadEnvelope
    {
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { throw .refused }
        skipWhitespace()
        guard index < bytes.count, bytes[index] == UInt8(ascii: "{") else { throw .refused }
        let envelope = try scanEnvelope(limits: limits)
        try expectEnd()
        return envelope
    }

    /// Which of `keys` the member name `key` is (compared byte for byte, as
    /// ``JSONMemberName`` compares names); the unescaped bytes of an escaped name are dropped.
    private mutating func member(_ key: KeyEntry, of keys: [StaticString]) -> Int? {
        let found = withKeyBytes(key) { name -> Int? in
            for position in keys.indices where Self.equal(name, keys[position]) { return position }
            return nil
        }
        if key.owned { ownedKeyBytes.removeSubrange(key.start...) }
        return found
    }

    /// The next member of an object being read whose members must be among `keys`, each once.
    @inline(__always)
    private mutating func nextKnownMember(of keys: [StaticString], seen: inout UInt32) throws(ChatChunkScanFailure)
        -> Int
    {
        let key = try memberNameAndColon(hasEarlierMembers: seen != 0)
        guard let position = member(key, of: keys) else { throw .refused }
        let bit = UInt32(1) << UInt32(position)
        guard seen & bit == 0 else { throw .refused }
        seen |= bit
        return position
    }

    private mutating func scanEnvelope(limits: JSONReader.Limits) throws(ChatChunkScanFailure)
        -> WorkspaceChatLoadEnvelope
    {
        var boundaryToken = ""
        var codexSessionId: String?
        var loadState = WorkspaceChatLoadState.ready
        var loadedEntries: Int64 = 0
        var hasOlderEntries = false
        var oldestCursor: String?
        var timeline: [TimelineBlock] = []
        var liveOverlay = LiveOverlay.empty
        var runtime: JSONObject?
        var activeRun: WorkspaceActiveRun?
        var seen: UInt32 = 0
        var more = try openObject(depth: 1)
        while more {
            switch try nextKnownMember(of: Self.envelopeKeys, seen: &seen) {
            case 0:
                boundaryToken = try requiredString()
                guard boundaryToken.unicodeScalars.contains(where: { !$0.properties.isWhitespace }) else {
                    throw .refused
                }
            case 1: codexSessionId = try string(nullable: true)
            case 2:
                do {
                    loadState = try WorkspaceChatLoadState.decode(try subtree(depth: 1, limits: limits), at: .root)
                } catch { throw .refused }
            case 3:
                guard try requiredString() == WorkspaceChatLoadEnvelope.storageFormat else { throw .refused }
            case 4: loadedEntries = try integer(in: 0...JSONValueReader.maxSafeInteger, nullable: false)!
            case 5: hasOlderEntries = try boolean()
            case 6: oldestCursor = try string(nullable: true)
            case 7: timeline = try scanRows(depth: 2)
            case 8: liveOverlay = try scanOverlay(depth: 2)
            case 9:
                if try skipNull() {
                    runtime = nil
                } else {
                    guard bytes[index] == UInt8(ascii: "{"),
                        case .object(let object) = try subtree(depth: 1, limits: limits)
                    else { throw .refused }
                    runtime = object
                }
            default:
                if try skipNull() {
                    activeRun = nil
                } else {
                    do {
                        activeRun = try WorkspaceActiveRun.decode(try subtree(depth: 1, limits: limits), at: .root)
                    } catch { throw .refused }
                }
            }
            more = try nextMember()
        }
        guard seen == (1 << Self.envelopeKeys.count) - 1 else { throw .refused }
        if hasOlderEntries, oldestCursor == nil { throw .refused }
        return WorkspaceChatLoadEnvelope(
            boundaryToken: boundaryToken, codexSessionId: codexSessionId, loadState: loadState,
            loadedEntries: loadedEntries, hasOlderEntries: hasOlderEntries, oldestCursor: oldestCursor,
            timeline: timeline, liveOverlay: liveOverlay, runtime: runtime, activeRun: activeRun)
    }

    private mutating func scanOverlay(depth: Int) throws(ChatChunkScanFailure) -> LiveOverlay {
        guard index < bytes.count, bytes[index] == UInt8(ascii: "{") else { throw .refused }
        var epoch: Int64 = 0
        var revision: Int64 = 0
        var blocks: [TimelineBlock] = []
        var seen: UInt32 = 0
        var more = try openObject(depth: depth)
        while more {
            switch try nextKnownMember(of: Self.overlayKeys, seen: &seen) {
            case 0: epoch = try integer(in: JSONValueReader.safeIntegerRange, nullable: false)!
            case 1: revision = try integer(in: JSONValueReader.safeIntegerRange, nullable: false)!
            default: blocks = try scanRows(depth: depth + 1)
            }
            more = try nextMember()
        }
        guard seen == 0b111 else { throw .refused }
        if revision == 0, !blocks.isEmpty { throw .refused }
        guard blocks.allSatisfy({ $0.origin == .live }) else { throw .refused }
        return LiveOverlay(settlementEpoch: epoch, revision: revision, blocks: blocks)
    }

    /// A page of rows (an array at `depth`), as ``TimelinePageDecoder`` reads it: every row
    /// valid, no splice key twice.
    private mutating func scanRows(depth: Int) throws(ChatChunkScanFailure) -> [TimelineBlock] {
        guard index < bytes.count, bytes[index] == UInt8(ascii: "[") else { throw .refused }
        try checkDepth(depth)
        index += 1
        skipWhitespace()
        var rows: [TimelineBlock] = []
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
            index += 1
            return rows
        }
        repeat {
            rows.append(try scanRow(depth: depth + 1))
        } while try nextElement()
        var identities = Set<TimelineRowIdentity>(minimumCapacity: rows.count)
        for row in rows where !identities.insert(row.identity).inserted { throw .refused }
        return rows
    }

    /// One row (an object at `depth`), as ``TimelineBlock/decode(_:at:)`` reads it.
    private mutating func scanRow(depth: Int) throws(ChatChunkScanFailure) -> TimelineBlock {
        guard index < bytes.count, bytes[index] == UInt8(ascii: "{") else { throw .refused }
        var type = TimelineRowType.user
        var id = ""
        var origin = TimelineOrigin.canonical
        var sourceOrder: [UInt64] = []
        var timestamp: Int64 = 0
        var text = ""
        var runId: String?
        var operationId: String?
        var subagentThreadId: String?
        var seen: UInt32 = 0
        var more = try openObject(depth: depth)
        while more {
            switch try nextKnownMember(of: Self.rowKeys, seen: &seen) {
            case 0: type = try oneOf(TimelineRowType.self)
            case 1:
                id = try requiredString()
                guard !id.isEmpty else { throw .refused }
            case 2: origin = try oneOf(TimelineOrigin.self)
            case 3: sourceOrder = try scanSourceOrder(depth: depth + 1)
            case 4: timestamp = try integer(in: Int64.min...Int64.max, nullable: false)!
            case 5: text = try requiredString()
            case 6: runId = try optionalNonEmptyString()
            case 7: operationId = try optionalNonEmptyString()
            default: subagentThreadId = try optionalNonEmptyString()
            }
            more = try nextMember()
        }
        guard seen & 0b11_1111 == 0b11_1111 else { throw .refused }
        if origin == .live {
            guard runId != nil else { throw .refused }
            if type == .user, operationId == nil { throw .refused }
        }
        return TimelineBlock(
            type: type, id: id, origin: origin, sourceOrder: sourceOrder, timestamp: timestamp, text: text,
            runId: runId, operationId: operationId, subagentThreadId: subagentThreadId)
    }

    /// A non-empty array (at `depth`) of unsigned integer literals.
    private mutating func scanSourceOrder(depth: Int) throws(ChatChunkScanFailure) -> [UInt64] {
        guard index < bytes.count, bytes[index] == UInt8(ascii: "[") else { throw .refused }
        try checkDepth(depth)
        index += 1
        skipWhitespace()
        var values: [UInt64] = []
        repeat {
            values.append(try unsignedInteger())
        } while try nextElement()
        return values
    }

    /// An unsigned integer literal within `0 … UInt64.max` without sign, fraction or exponent;
    /// anything else is refused (`-0`, which the tree reads as 0, included).
    @inline(__always)
    private mutating func unsignedInteger() throws(ChatChunkScanFailure) -> UInt64 {
        guard index < bytes.count, isDigit(bytes[index]) else { throw .refused }
        var position = index
        var value: UInt64 = 0
        if bytes[position] == UInt8(ascii: "0") {
            position += 1
        } else {
            while position < bytes.count, isDigit(bytes[position]) {
                let (times, overflowTimes) = value.multipliedReportingOverflow(by: 10)
                let (sum, overflowSum) = times.addingReportingOverflow(UInt64(bytes[position] &- UInt8(ascii: "0")))
                guard !overflowTimes, !overflowSum else { throw .refused }
                value = sum
                position += 1
            }
        }
        guard position < bytes.count else { throw .refused }
        let next = bytes[position]
        guard !isDigit(next), next != UInt8(ascii: "."), next | 0x20 != UInt8(ascii: "e") else { throw .refused }
        index = position
        return value
    }

    /// A string (not `null`).
    @inline(__always)
    private mutating func requiredString() throws(ChatChunkScanFailure) -> String {
        guard let text = try string(nullable: false) else { throw .refused }
        return text
    }

    /// Absent or `null` is `nil`; otherwise a non-empty string.
    private mutating func optionalNonEmptyString() throws(ChatChunkScanFailure) -> String? {
        guard let text = try string(nullable: true) else { return nil }
        guard !text.isEmpty else { throw .refused }
        return text
    }

    private mutating func boolean() throws(ChatChunkScanFailure) -> Bool {
        guard index < bytes.count else { throw .refused }
        switch bytes[index] {
        case UInt8(ascii: "t"):
            try expectLiteral("true")
            return true
        case UInt8(ascii: "f"):
            try expectLiteral("false")
            return false
        default: throw .refused
        }
    }

    /// A string that must be one of `T`'s raw values: plain ASCII contents are compared in
    /// place, anything else is built and compared as the tree decoder compares it.
    private mutating func oneOf<T: RawRepresentable & CaseIterable>(_: T.Type) throws(ChatChunkScanFailure) -> T
    where T.RawValue == String {
        guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw .refused }
        let span = try scanString()
        if !span.escaped, span.ascii {
            let contents = UnsafeBufferPointer(rebasing: bytes[span.start..<span.end])
            for candidate in T.allCases {
                var raw = candidate.rawValue
                let same = raw.withUTF8 { rawBytes in
                    rawBytes.count == contents.count
                        && (rawBytes.count == 0
                            || memcmp(rawBytes.baseAddress!, contents.baseAddress!, rawBytes.count) == 0)
                }
                if same { return candidate }
            }
            throw .refused
        }
        guard let value = T(rawValue: makeString(span)) else { throw .refused }
        return value
    }

    /// The value at `index` (a member of an object at `depth`), checked in place and then
    /// parsed into a tree from its bytes.
    private mutating func subtree(depth: Int, limits: JSONReader.Limits) throws(ChatChunkScanFailure) -> JSONValue {
        let start = index
        try skipValue(depth: depth)
        do {
            return try JSONReader(limits: limits).parse(UnsafeBufferPointer(rebasing: bytes[start..<index]))
        } catch {
            throw .refused
        }
    }
}
