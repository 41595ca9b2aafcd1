import SybilCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A failure on its way up from ``ChatCompletionChunkScanner``; path components are collected
/// innermost first, as the containers it passes through add theirs.
struct ChatChunkScanFailure: Error {
    var kind: JSONError.Kind
    var offset: Int?
    var message: String
    var reversedPath: [JSONPath.Component] = []

    /// The error with its path outermost first.
    var jsonError: JSONError {
        JSONError(kind: kind, path: JSONPath(components: reversedPath.reversed()), offset: offset, message: message)
    }

    /// The failure one level further out.
    func within(_ component: JSONPath.Component) -> ChatChunkScanFailure {
        var copy = self
        copy.reversedPath.append(component)
        return copy
    }

    /// A contract failure at `key` (relative to the object being read).
    static func contract(_ key: String, _ message: String) -> ChatChunkScanFailure {
        ChatChunkScanFailure(kind: .contract, offset: nil, message: message, reversedPath: [.key(key)])
    }
}

/// The single pass behind ``ChatCompletionChunkDecoder``: reads a `chat.completion.chunk`
/// straight from its bytes, checking every byte as ``JSONReader`` does (RFC 8259 grammar,
/// UTF-8, escapes and surrogate pairs, the nesting limit) while skipping the values it does not
/// need, and every known member as ``ChatCompletionChunk/decode(_:at:)`` does (types, integer
/// ranges, duplicate names in the objects it reads), without building a JSON tree. For a chunk
/// (``replacesUnpairedSurrogates``) an unpaired surrogate escape is read as U+FFFD, as the tree
/// decoder reads it after ``UnpairedSurrogateEscapes``, and the text members it starts or ends
/// are noted (``surrogateEdges``) for the decoder to join a pair split between chunks.
///
/// Its cursor (checked strings, integers, member names, skipped values, the nesting limit) is
/// internal rather than private because the workspace chat load envelope's byte reader
/// (`WorkspaceChatLoadEnvelope+Bytes.swift`) reads its rows with it too.
struct ChatCompletionChunkScanner {
    /// Where one member name's bytes are: in the document (`owned == false`) or, when it had
    /// escapes, unescaped in ``ownedKeyBytes``.
    /// Documents are at most 64 MiB: offsets fit 32 bits (and a count 31, for ``packed``).
    struct KeyEntry {
        private var rawStart: Int32
        private var rawCount: Int32
        var owned: Bool

        init(start: Int, count: Int, owned: Bool = false) {
            rawStart = Int32(truncatingIfNeeded: start)
            rawCount = Int32(truncatingIfNeeded: count)
            self.owned = owned
        }

        var start: Int { Int(rawStart) }
        var count: Int { Int(rawCount) }

        /// The entry as one word, as ``KeyScope`` keeps it.
        var packed: UInt64 {
            UInt64(UInt32(bitPattern: rawStart)) << 32 | UInt64(UInt32(bitPattern: rawCount)) << 1 | (owned ? 1 : 0)
        }

        init(packed: UInt64) {
            rawStart = Int32(bitPattern: UInt32(truncatingIfNeeded: packed >> 32))
            rawCount = Int32(bitPattern: UInt32(truncatingIfNeeded: packed >> 1 & 0x7FFF_FFFF))
            owned = packed & 1 != 0
        }
    }

    /// A string read before and its bytes, so that reading the same bytes again hands out the
    /// same string instead of building one (which allocates past 15 bytes).
    struct RecentString {
        private var text = ""
        private var bytes: [UInt8] = []

        /// The string, when `contents` are its bytes.
        func text(equalTo contents: UnsafeBufferPointer<UInt8>) -> String? {
            guard contents.count == bytes.count, !bytes.isEmpty else { return nil }
            let same = bytes.withUnsafeBufferPointer {
                memcmp($0.baseAddress!, contents.baseAddress!, contents.count) == 0
            }
            return same ? text : nil
        }

        /// Keeps `text`, whose bytes are `contents`.
        mutating func remember(_ text: String, _ contents: UnsafeBufferPointer<UInt8>) {
            self.text = text
            bytes.removeAll(keepingCapacity: true)
            bytes.append(contentsOf: contents)
        }
    }

    /// The unpaired surrogate escapes at the ends of a string's contents (0 where there is
    /// none): what a decoder kept for a stream needs to join a pair split between two deltas.
    struct StringEdges: Equatable {
        /// A low surrogate escape that starts the contents.
        var leadingLow: UInt16 = 0
        /// A high surrogate escape that ends the contents, no low one after it.
        var trailingHigh: UInt16 = 0

        var isEmpty: Bool { leadingLow == 0 && trailingHigh == 0 }
    }

    /// Where a checked string's contents are, and what building its text needs.
    struct StringSpan {
        var start: Int
        var end: Int
        /// Whether the contents hold escapes (the text is then unescaped first).
        var escaped: Bool
        /// Whether every byte of the contents is ASCII.
        var ascii: Bool
    }

    /// The names seen so far in one object being read, for the duplicate rule: known names as
    /// one bit each (a known name can only equal itself), the others compared with each other,
    /// the first ``ChatCompletionChunkScanner/linearScopeLimit`` in place (no allocation), the
    /// rest in a set, so that a hostile object of many members costs linear time.
    private struct KeyScope {
        var knownSeen: UInt32 = 0
        var members = 0
        var unknownCount = 0
        /// The unknown names in place, each ``KeyEntry/packed`` into one word, so that the eight
        /// zeroed for every object read cost a few stores.
        var unknown = InlineArray<8, UInt64>(repeating: 0)
        /// The position of this object's set in ``ChatCompletionChunkScanner/largeScopes``, once
        /// it has more unknown names than fit in place.
        var large: Int?
    }

    /// Which known member a name is (the raw value is its bit in ``KeyScope/knownSeen``).
    private enum Known: UInt8 {
        // `object` is read only to be skipped: a name of its own, so that the name every chunk
        // has takes the quick way.
        case id, model, created, choices, usage, error, object
        case index, finishReason, delta
        case role, content, reasoningContent, reasoning
        case promptTokens, completionTokens, totalTokens
    }

    /// What a deferred `reasoning` member held.
    private enum Deferred {
        case absent
        case text(StringSpan)
        case wrongKind(String)
    }

    private static let linearScopeLimit = 8

    /// The nesting limit (``JSONReader``'s standard one, read once per decoder).
    let maximumDepth: Int

    /// The document (set by ``ChatCompletionChunkDecoder`` for the length of one pass).
    var bytes: UnsafeBufferPointer<UInt8>
    var index = 0
    /// The names of objects with more unknown members than ``KeyScope`` keeps in place (hostile
    /// input only).
    private var largeScopes: [Set<[UInt8]>] = []
    /// The last `id` and `model` read, kept from chunk to chunk of a stream.
    var recentID = RecentString()
    var recentModel = RecentString()
    /// The members other than the id and the choices the last chunk had, shared with it.
    var recentExtras: ChatCompletionChunk.Extras?
    /// Unescaped bytes of names that had escapes.
    var ownedKeyBytes: [UInt8]
    /// Unescaped bytes of the string being built.
    var scratch: [UInt8]
    /// Whether an unpaired surrogate escape is read as U+FFFD (a chat chunk, RFC 8259 §8.2)
    /// rather than refused (the strict reading ``JSONReader`` and the envelope's reader keep).
    var replacesUnpairedSurrogates = false
    /// How many unpaired surrogate escapes this pass met (read as U+FFFD).
    var unpairedSurrogates = 0
    /// The ends of the last string ``makeString(_:)`` built from escaped contents.
    var lastStringEdges = StringEdges()
    /// The choice being read (its position in `choices`), for ``surrogateEdges``.
    var currentChoice = 0
    /// The text members of this pass's choices that start or end with an unpaired surrogate
    /// escape, in the order of their choices (at most ``maximumSurrogateEdges``).
    var surrogateEdges: [ChatChunkSurrogateCarry.Edge] = []
    /// The most edges one pass notes; past them a split pair is not joined (each half is
    /// U+FFFD), so a hostile chunk cannot grow the list.
    static let maximumSurrogateEdges = 256
    /// Whether a pair split between chunks is joined (a decoder kept for a stream): the
    /// chunks of this scanner's passes are one stream.
    var joinsSplitSurrogates = false
    /// The surrogates held for the stream's next chunk, kept from pass to pass.
    var carry = ChatChunkSurrogateCarry()
    /// Whether ``carry`` holds any (read per chunk without looking into it); the quick way
    /// leaves every chunk to the general way while it does.
    var holdsSurrogates = false

    init(bytes: UnsafeBufferPointer<UInt8>, maximumDepth: Int, ownedKeyBytes: [UInt8], scratch: [UInt8]) {
        self.bytes = bytes
        self.maximumDepth = maximumDepth
        self.ownedKeyBytes = ownedKeyBytes
        self.scratch = scratch
        self.ownedKeyBytes.removeAll(keepingCapacity: true)
    }

    /// Starts a pass over `bytes` with the buffers and recent strings kept from earlier passes
    /// (a decoder keeps one scanner for its stream instead of moving them into a new one per
    /// chunk). The document must outlive the pass; ``end()`` lets go of it.
    mutating func begin(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
        index = 0
        if !ownedKeyBytes.isEmpty { ownedKeyBytes.removeAll(keepingCapacity: true) }
        if !largeScopes.isEmpty { largeScopes.removeAll() }
        // Edges are noted only where an unpaired surrogate was read.
        if unpairedSurrogates != 0 {
            unpairedSurrogates = 0
            if !surrogateEdges.isEmpty { surrogateEdges.removeAll(keepingCapacity: true) }
        }
    }

    /// Ends a pass: the document is no longer referred to.
    mutating func end() {
        bytes = UnsafeBufferPointer(start: nil, count: 0)
    }

    // MARK: Document

    /// Reads the whole document: a chunk, or `nil` when the root object has an `error` member
    /// (an error frame, which ``APIErrorBody`` reads).
    mutating func scanDocument() throws(ChatChunkScanFailure) -> ChatCompletionChunk? {
        // Nearly every chunk of a stream: read in one straight pass, or not at all.
        if let chunk = scanCommonShape() { return chunk }
        index = 0
        unpairedSurrogates = 0
        let chunk = try scanDocumentGenerally()
        // Nearly always: no unpaired surrogate read, none held.
        if unpairedSurrogates == 0, !holdsSurrogates { return chunk }
        return joined(chunk)
    }

    /// `chunk` with the pairs split between chunks joined (``ChatChunkSurrogateCarry``), when
    /// this scanner's chunks are a stream.
    @inline(never)
    private mutating func joined(_ chunk: consuming ChatCompletionChunk?) -> ChatCompletionChunk? {
        guard joinsSplitSurrogates, let read = chunk else { return chunk }
        defer { holdsSurrogates = carry.isHolding }
        return carry.apply(to: read, edges: surrogateEdges)
    }

    /// The chunk with what ``carry`` still holds, as U+FFFD, at the end of the stream.
    mutating func finishCarry() -> ChatCompletionChunk? {
        holdsSurrogates = false
        return carry.finish()
    }

    /// ``scanDocument()`` without the quick way: any member order, white space and member,
    /// and every error worded (the tests hold the quick way to it).
    mutating func scanDocumentGenerally() throws(ChatChunkScanFailure) -> ChatCompletionChunk? {
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF {
            throw failure(at: 0, "a byte-order mark is not allowed before JSON text")
        }
        skipWhitespace()
        guard index < bytes.count else { throw failure(at: index, "unexpected end of input; expected a value") }
        guard bytes[index] == UInt8(ascii: "{") else {
            let kind = kindOfValue()
            try skipValue(depth: 0)
            try expectEnd()
            throw ChatChunkScanFailure(kind: .contract, offset: nil, message: "expected an object, got \(kind)")
        }
        return try scanRoot()
    }

    mutating func expectEnd() throws(ChatChunkScanFailure) {
        skipWhitespace()
        if index < bytes.count {
            throw failure(at: index, "unexpected \(describeByte(at: index)) after the end of the JSON value")
        }
    }

    /// The root object and the end of the document after it; `nil` when the object has an
    /// `error` member.
    private mutating func scanRoot() throws(ChatChunkScanFailure) -> ChatCompletionChunk? {
        var givenID: String?
        var model: String?
        var created: Int64?
        var sawChoices = false
        // The first choice is read in place and moved into the chunk once (one returned by
        // the functions that read it was copied and destroyed whole on its way out).
        var firstChoice = ChatCompletionChunk.Choice(index: 0)
        var hasFirstChoice = false
        var otherChoices: [ChatCompletionChunk.Choice] = []
        var usage: ChatCompletionUsage?
        var scope = KeyScope()
        var more = try openObject(depth: 1)
        while more {
            let (key, member) = try memberName(in: &scope, depth: 1)
            do throws(ChatChunkScanFailure) {
                switch member {
                case .id: givenID = try recentString(nullable: true, model: false)
                case .model: model = try recentString(nullable: true, model: true)
                case .created: created = try timestamp()
                case .choices:
                    sawChoices = true
                    try scanChoices(first: &firstChoice, hasFirst: &hasFirstChoice, others: &otherChoices)
                case .usage: usage = try scanUsage()
                case .error: return nil
                default: try skipValue(depth: 1)
                }
            } catch {
                throw error.within(.key(name(key)))
            }
            more = try nextMember()
        }
        try expectEnd()
        // Gemini's OpenAI-compatible endpoint left `id` out: an absent or `null` id is empty.
        let id = givenID ?? ""
        guard sawChoices else { throw .contract("choices", "required member is missing") }
        // The same model and creation time and no usage, as in every chunk of a stream but the
        // last: the box the previous chunk had.
        let extras: ChatCompletionChunk.Extras?
        if otherChoices.isEmpty, let recent = recentExtras, recent.holds(model: model, created: created, usage: usage) {
            extras = recent
        } else {
            extras = .make(model: model, created: created, usage: usage, otherChoices: otherChoices)
            if usage == nil, otherChoices.isEmpty, extras != nil { recentExtras = extras }
        }
        // Moved into the chunk's box (`consume` leaves one copy and destroy here that no
        // other spelling tried removed: `exchange`, an unsafe move, reading into the box).
        guard hasFirstChoice else { return ChatCompletionChunk(id: id, firstChoice: nil, extras: extras) }
        return ChatCompletionChunk(id: id, firstChoice: consume firstChoice, extras: extras)
    }

    /// Reads `choices` into its first element (`hasFirst` says whether there is one) and the
    /// ones after it. The root reads it once: a second `choices` is refused as a duplicate.
    private mutating func scanChoices(
        first: inout ChatCompletionChunk.Choice, hasFirst: inout Bool, others: inout [ChatCompletionChunk.Choice]
    ) throws(ChatChunkScanFailure) {
        guard index < bytes.count, bytes[index] == UInt8(ascii: "[") else {
            throw ChatChunkScanFailure(kind: .contract, message: "expected an array, got \(kindOfValue())")
        }
        index += 1
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
            index += 1
            return
        }
        try scanChoiceElement(at: 0, into: &first)
        hasFirst = true
        var position = 1
        while try nextElement() {
            var choice = ChatCompletionChunk.Choice(index: Int64(position))
            try scanChoiceElement(at: position, into: &choice)
            others.append(choice)
            position += 1
        }
    }

    /// Reads the element of `choices` at `position`, which must be an object, into `choice` (a
    /// fresh `Choice(index: position)`: a choice without `index` is the one at its position).
    private mutating func scanChoiceElement(
        at position: Int, into choice: inout ChatCompletionChunk.Choice
    ) throws(ChatChunkScanFailure) {
        do throws(ChatChunkScanFailure) {
            guard index < bytes.count, bytes[index] == UInt8(ascii: "{") else {
                throw ChatChunkScanFailure(kind: .contract, message: "expected an object, got \(kindOfValue())")
            }
            currentChoice = position
            try scanChoice(into: &choice)
        } catch {
            throw error.within(.index(position))
        }
    }

    private mutating func scanChoice(into choice: inout ChatCompletionChunk.Choice) throws(ChatChunkScanFailure) {
        var reasoning = Deferred.absent
        var scope = KeyScope()
        var more = try openObject(depth: 3)
        while more {
            let (key, member) = try memberName(in: &scope, depth: 3)
            do throws(ChatChunkScanFailure) {
                switch member {
                case .index:
                    if let index = try integer(in: 0...Int64(Int32.max), nullable: true) { choice.index = index }
                case .finishReason:
                    choice.finishReason = try string(nullable: true).map(ChatCompletionChunk.FinishReason.init)
                case .delta:
                    if try skipNull() { break }
                    guard bytes[index] == UInt8(ascii: "{") else {
                        throw ChatChunkScanFailure(kind: .contract, message: "expected an object, got \(kindOfValue())")
                    }
                    try scanDelta(into: &choice, reasoning: &reasoning)
                default: try skipValue(depth: 3)
                }
            } catch {
                throw error.within(.key(name(key)))
            }
            more = try nextMember()
        }
        // As the tree decoder: `reasoning` is read only when `reasoning_content` is not there.
        if choice.reasoning == nil {
            switch reasoning {
            case .absent: break
            case .text(let span):
                lastStringEdges = StringEdges()
                choice.reasoning = makeString(span)
                noteEdges(.reasoning)
            case .wrongKind(let kind):
                throw ChatChunkScanFailure.contract("reasoning", "expected a string, got \(kind)").within(.key("delta"))
            }
        }
    }

    /// Reads a choice's `delta` into `choice`, keeping `reasoning` aside: it counts only when
    /// `reasoning_content` is absent, wherever the two stand.
    private mutating func scanDelta(
        into choice: inout ChatCompletionChunk.Choice, reasoning: inout Deferred
    ) throws(ChatChunkScanFailure) {
        var scope = KeyScope()
        var more = try openObject(depth: 4)
        while more {
            let (key, member) = try memberName(in: &scope, depth: 4)
            do throws(ChatChunkScanFailure) {
                switch member {
                case .role: choice.role = try string(nullable: true)
                case .content:
                    lastStringEdges = StringEdges()
                    choice.content = try string(nullable: true)
                    noteEdges(.content)
                case .reasoningContent:
                    lastStringEdges = StringEdges()
                    choice.reasoning = try string(nullable: true)
                    noteEdges(.reasoning)
                case .reasoning:
                    if try skipNull() {
                        reasoning = .absent
                    } else if bytes[index] == UInt8(ascii: "\"") {
                        reasoning = .text(try scanString())
                    } else {
                        let kind = kindOfValue()
                        try skipValue(depth: 4)
                        reasoning = .wrongKind(kind)
                    }
                default:
                    // `tool_calls` is rare and read leniently, through the tree reader, as the
                    // tree decoder does (``ChatToolCallDelta/list(from:)``).
                    let start = index
                    let unpairedBefore = unpairedSurrogates
                    try skipValue(depth: 4)
                    if member == nil, withKeyBytes(key, { Self.equal($0, "tool_calls") }) {
                        choice.toolCalls = ChatToolCallDelta.list(
                            fromJSON: UnsafeBufferPointer(rebasing: bytes[start..<index]))
                        if unpairedSurrogates != unpairedBefore, !choice.toolCalls.isEmpty {
                            noteArgumentEdges(at: start)
                        }
                    }
                }
            } catch {
                throw error.within(.key(name(key)))
            }
            more = try nextMember()
        }
    }

    private mutating func scanUsage() throws(ChatChunkScanFailure) -> ChatCompletionUsage? {
        if try skipNull() { return nil }
        guard bytes[index] == UInt8(ascii: "{") else {
            throw ChatChunkScanFailure(kind: .contract, message: "expected an object, got \(kindOfValue())")
        }
        let range = 0...ChatCompletionUsage.maximumCount
        var prompt: Int64?
        var completion: Int64?
        var total: Int64?
        var scope = KeyScope()
        var more = try openObject(depth: 2)
        while more {
            let (key, member) = try memberName(in: &scope, depth: 2)
            do throws(ChatChunkScanFailure) {
                switch member {
                case .promptTokens: prompt = try integer(in: range, nullable: false)
                case .completionTokens: completion = try integer(in: range, nullable: false)
                case .totalTokens: total = try integer(in: range, nullable: false)
                default: try skipValue(depth: 2)
                }
            } catch {
                throw error.within(.key(name(key)))
            }
            more = try nextMember()
        }
        return ChatCompletionUsage.completing(prompt: prompt, completion: completion, total: total)
    }

    // MARK: Objects read member by member

    /// Steps into an object at `index`; whether it has a member.
    @inline(__always)
    mutating func openObject(depth: Int) throws(ChatChunkScanFailure) -> Bool {
        try checkDepth(depth)
        index += 1  // {
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
            index += 1
            return false
        }
        return true
    }

    /// Reads a member name and its colon, and which known member of an object at `depth` it
    /// names; refuses a name that an earlier member of the object had.
    /// Only the common case is here (a known name, byte for byte, the first time in this
    /// object); anything else goes to ``anyMemberName(in:depth:)``.
    @inline(__always)
    private mutating func memberName(in scope: inout KeyScope, depth: Int) throws(ChatChunkScanFailure)
        -> (key: KeyEntry, known: Known?)
    {
        if let (quick, length) = quickKnown(depth: depth), let colon = colonAfterName(length) {
            let bit = UInt32(1) << UInt32(quick.rawValue)
            if scope.knownSeen & bit == 0 {
                scope.knownSeen |= bit
                scope.members += 1
                let key = KeyEntry(start: index + 1, count: length - 2, owned: false)
                index = colon
                return (key, quick)
            }
        }
        return try anyMemberName(in: &scope, depth: depth)
    }

    /// ``memberName(in:depth:)`` the general way: any name, escapes, the duplicate rule, and
    /// every error worded.
    @inline(never)
    private mutating func anyMemberName(in scope: inout KeyScope, depth: Int) throws(ChatChunkScanFailure)
        -> (key: KeyEntry, known: Known?)
    {
        let key: KeyEntry
        let member: Known?
        if let (quick, length) = quickKnown(depth: depth), let colon = colonAfterName(length) {
            key = KeyEntry(start: index + 1, count: length - 2, owned: false)
            member = quick
            index = colon
        } else {
            key = try memberNameAndColon(hasEarlierMembers: scope.members > 0)
            member = known(key, depth: depth)
        }
        scope.members += 1
        let duplicate: Bool
        if let member {
            let bit = UInt32(1) << UInt32(member.rawValue)
            duplicate = scope.knownSeen & bit != 0
            scope.knownSeen |= bit
        } else {
            duplicate = isDuplicateUnknown(key, in: &scope)
        }
        if duplicate {
            let text = name(key)
            throw .contract(text, JSONObjectReader.duplicateKey(text))
        }
        return (key, member)
    }

    mutating func memberNameAndColon(hasEarlierMembers: Bool) throws(ChatChunkScanFailure) -> KeyEntry {
        guard index < bytes.count else { throw failure(at: index, "unexpected end of input; expected a member name") }
        guard bytes[index] == UInt8(ascii: "\"") else {
            if bytes[index] == UInt8(ascii: "}") && hasEarlierMembers {
                throw failure(at: index, "trailing comma before '}'")
            }
            throw failure(at: index, "unexpected \(describeByte(at: index)); expected a member name in quotes")
        }
        let span = try scanString()
        var key = KeyEntry(start: span.start, count: span.end - span.start, owned: false)
        if span.escaped {
            let ownedStart = ownedKeyBytes.count
            unescape(span.start, span.end, into: &ownedKeyBytes)
            key = KeyEntry(start: ownedStart, count: ownedKeyBytes.count - ownedStart, owned: true)
        }
        skipWhitespace()
        guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else {
            let message =
                index < bytes.count
                ? "unexpected \(describeByte(at: index)); expected ':' after the member name"
                : "unexpected end of input; expected ':'"
            throw failure(at: index, message).within(.key(name(key)))
        }
        index += 1
        skipWhitespace()
        return key
    }

    /// Where the value after a name of `length` bytes (quotes included) at `index` starts, when
    /// a colon follows the name; `nil` sends the name the general way (which words any error).
    @inline(__always)
    private func colonAfterName(_ length: Int) -> Int? {
        let count = bytes.count
        var position = index + length
        guard position < count else { return nil }
        if bytes[position] != UInt8(ascii: ":") {
            while position < count, Self.isWhitespace(bytes[position]) { position += 1 }
            guard position < count, bytes[position] == UInt8(ascii: ":") else { return nil }
        }
        position += 1
        // Compact JSON: the value right after the colon.
        guard position < count, bytes[position] <= 0x20 else { return position }
        while position < count, Self.isWhitespace(bytes[position]) { position += 1 }
        return position
    }

    @inline(__always)
    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
    }

    /// The known member of an object at `depth` whose name, quotes included, is at `index`
    /// byte for byte (then it holds no escape and is exactly that name), and the name's length;
    /// `nil` when none is, or when too few bytes are left to compare whole words (the general
    /// way reads it then).
    /// The names are compared as little-endian words of their bytes, quotes included.
    @inline(__always)
    private func quickKnown(depth: Int) -> (Known, Int)? {
        let available = bytes.count - index
        guard available >= 16 else { return nil }
        let base = UnsafeRawPointer(bytes.baseAddress! + index)
        let first = base.loadUnaligned(as: UInt64.self)
        let second = base.loadUnaligned(fromByteOffset: 8, as: UInt64.self)
        let seven = first & 0x00FF_FFFF_FFFF_FFFF
        switch depth {
        case 1:
            if first & 0xFFFF_FFFF == 0x2264_6922 { return (.id, 4) }  // "id"
            if seven == 0x22_6C65_646F_6D22 { return (.model, 7) }  // "model"
            if seven == 0x22_6567_6173_7522 { return (.usage, 7) }  // "usage"
            if seven == 0x22_726F_7272_6522 { return (.error, 7) }  // "error"
            if first == 0x2274_6365_6A62_6F22 { return (.object, 8) }  // "object"
            guard second & 0xFF == 0x22 else { return nil }
            if first == 0x7365_6369_6F68_6322 { return (.choices, 9) }  // "choices"
            if first == 0x6465_7461_6572_6322 { return (.created, 9) }  // "created"
        case 2:
            if first == 0x5F74_706D_6F72_7022, second & 0x00FF_FFFF_FFFF_FFFF == 0x22_736E_656B_6F74 {
                return (.promptTokens, 15)  // "prompt_tokens"
            }
            if first == 0x745F_6C61_746F_7422, second & 0xFFFF_FFFF_FFFF == 0x2273_6E65_6B6F {
                return (.totalTokens, 14)  // "total_tokens"
            }
            guard available >= 24 else { return nil }
            let third = base.loadUnaligned(fromByteOffset: 16, as: UInt64.self)
            if first == 0x7465_6C70_6D6F_6322, second == 0x656B_6F74_5F6E_6F69, third & 0xFF_FFFF == 0x22_736E {
                return (.completionTokens, 19)  // "completion_tokens"
            }
        case 3:
            if seven == 0x22_7865_646E_6922 { return (.index, 7) }  // "index"
            if seven == 0x22_6174_6C65_6422 { return (.delta, 7) }  // "delta"
            if first == 0x5F68_7369_6E69_6622, second & 0x00FF_FFFF_FFFF_FFFF == 0x22_6E6F_7361_6572 {
                return (.finishReason, 15)  // "finish_reason"
            }
        default:
            if first & 0xFFFF_FFFF_FFFF == 0x2265_6C6F_7222 { return (.role, 6) }  // "role"
            if first == 0x746E_6574_6E6F_6322, second & 0xFF == 0x22 { return (.content, 9) }  // "content"
            guard first == 0x696E_6F73_6165_7222 else { return nil }
            if second & 0xFF_FFFF == 0x22_676E { return (.reasoning, 11) }  // "reasoning"
            guard available >= 24 else { return nil }
            let third = base.loadUnaligned(fromByteOffset: 16, as: UInt64.self)
            if second == 0x6574_6E6F_635F_676E, third & 0xFF_FFFF == 0x22_746E {
                return (.reasoningContent, 19)  // "reasoning_content"
            }
        }
        return nil
    }

    /// After a member's value: whether another member follows (`,`) or the object ended (`}`).
    @inline(__always)
    mutating func nextMember() throws(ChatChunkScanFailure) -> Bool {
        skipWhitespace()
        guard index < bytes.count else { throw failure(at: index, "unexpected end of input; expected ',' or '}'") }
        let byte = bytes[index]
        index += 1
        if byte == UInt8(ascii: "}") { return false }
        guard byte == UInt8(ascii: ",") else {
            throw failure(at: index - 1, "unexpected \(describeByte(at: index - 1)); expected ',' or '}'")
        }
        skipWhitespace()
        return true
    }

    /// After an element: whether another follows (`,`) or the array ended (`]`).
    @inline(__always)
    mutating func nextElement() throws(ChatChunkScanFailure) -> Bool {
        skipWhitespace()
        guard index < bytes.count else { throw failure(at: index, "unexpected end of input; expected ',' or ']'") }
        let byte = bytes[index]
        index += 1
        if byte == UInt8(ascii: "]") { return false }
        guard byte == UInt8(ascii: ",") else {
            throw failure(at: index - 1, "unexpected \(describeByte(at: index - 1)); expected ',' or ']'")
        }
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
            throw failure(at: index, "trailing comma before ']'")
        }
        return true
    }

    // MARK: Member names

    @inline(__always)
    func withKeyBytes<R>(_ key: KeyEntry, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        if !key.owned { return body(UnsafeBufferPointer(rebasing: bytes[key.start..<key.start + key.count])) }
        return ownedKeyBytes.withUnsafeBufferPointer { owned in
            body(UnsafeBufferPointer(rebasing: owned[key.start..<key.start + key.count]))
        }
    }

    /// The name as text (for paths and messages).
    func name(_ key: KeyEntry) -> String {
        withKeyBytes(key) { String(decoding: $0, as: UTF8.self) }
    }

    /// Notes `key`, a name that is not a known member's, in `scope`; whether an earlier
    /// member of the object had the same name (compared by code points, as ``JSONMemberName``
    /// does: byte by byte). Known names are never compared here: none equals an unknown one.
    private mutating func isDuplicateUnknown(_ key: KeyEntry, in scope: inout KeyScope) -> Bool {
        if let large = scope.large {
            return !largeScopes[large].insert(withKeyBytes(key) { Array($0) }).inserted
        }
        for position in 0..<scope.unknownCount {
            let earlier = KeyEntry(packed: scope.unknown[position])
            // At most a few names: their lengths tell most apart, the bytes the rest.
            if earlier.count == key.count, sameBytes(earlier, key) {
                return true
            }
        }
        if scope.unknownCount < Self.linearScopeLimit {
            scope.unknown[scope.unknownCount] = key.packed
            scope.unknownCount += 1
            return false
        }
        var set = Set<[UInt8]>(minimumCapacity: 64)
        for position in 0..<scope.unknownCount {
            set.insert(withKeyBytes(KeyEntry(packed: scope.unknown[position])) { Array($0) })
        }
        set.insert(withKeyBytes(key) { Array($0) })
        scope.large = largeScopes.count
        largeScopes.append(set)
        return false
    }

    private func sameBytes(_ left: KeyEntry, _ right: KeyEntry) -> Bool {
        withKeyBytes(left) { leftBytes in
            withKeyBytes(right) { rightBytes in
                leftBytes.count == rightBytes.count
                    && (leftBytes.count == 0
                        || memcmp(leftBytes.baseAddress!, rightBytes.baseAddress!, leftBytes.count) == 0)
            }
        }
    }

    /// Which known member `key` names in an object at `depth` (1 root, 2 usage, 3 choice,
    /// 4 delta).
    private func known(_ key: KeyEntry, depth: Int) -> Known? {
        withKeyBytes(key) { name in
            switch depth {
            case 1:
                switch name.count {
                case 2: return Self.equal(name, "id") ? .id : nil
                case 6: return Self.equal(name, "object") ? .object : nil
                case 5:
                    if Self.equal(name, "model") { return .model }
                    if Self.equal(name, "usage") { return .usage }
                    return Self.equal(name, "error") ? .error : nil
                case 7:
                    if Self.equal(name, "choices") { return .choices }
                    return Self.equal(name, "created") ? .created : nil
                default: return nil
                }
            case 2:
                switch name.count {
                case 12: return Self.equal(name, "total_tokens") ? .totalTokens : nil
                case 13: return Self.equal(name, "prompt_tokens") ? .promptTokens : nil
                case 17: return Self.equal(name, "completion_tokens") ? .completionTokens : nil
                default: return nil
                }
            case 3:
                switch name.count {
                case 5:
                    if Self.equal(name, "index") { return .index }
                    return Self.equal(name, "delta") ? .delta : nil
                case 13: return Self.equal(name, "finish_reason") ? .finishReason : nil
                default: return nil
                }
            default:
                switch name.count {
                case 4: return Self.equal(name, "role") ? .role : nil
                case 7: return Self.equal(name, "content") ? .content : nil
                case 9: return Self.equal(name, "reasoning") ? .reasoning : nil
                case 17: return Self.equal(name, "reasoning_content") ? .reasoningContent : nil
                default: return nil
                }
            }
        }
    }

    @inline(__always)
    static func equal(_ name: UnsafeBufferPointer<UInt8>, _ literal: StaticString) -> Bool {
        name.count == literal.utf8CodeUnitCount && memcmp(name.baseAddress!, literal.utf8Start, name.count) == 0
    }

    // MARK: Known values

    /// Consumes `null` when it is next; whether it was.
    @inline(__always)
    mutating func skipNull() throws(ChatChunkScanFailure) -> Bool {
        guard index < bytes.count else { throw failure(at: index, "unexpected end of input; expected a value") }
        guard bytes[index] == UInt8(ascii: "n") else { return false }
        try expectLiteral("null")
        return true
    }

    /// A string, or `nil` for `null` when `nullable`; any other value fails. Text equal to the
    /// last `model` (when `model`) or `id` read (the same in every chunk of a stream) is that
    /// string again, not built anew.
    mutating func recentString(nullable: Bool, model: Bool) throws(ChatChunkScanFailure) -> String? {
        guard index < bytes.count else { throw failure(at: index, "unexpected end of input; expected a value") }
        if bytes[index] == UInt8(ascii: "\"") {
            let span = try scanString()
            if span.escaped { return makeString(span) }
            let contents = UnsafeBufferPointer(rebasing: bytes[span.start..<span.end])
            if let text = model ? recentModel.text(equalTo: contents) : recentID.text(equalTo: contents) {
                return text
            }
            let text = makeString(span)
            if model {
                recentModel.remember(text, contents)
            } else {
                recentID.remember(text, contents)
            }
            return text
        }
        if nullable, try skipNull() { return nil }
        throw ChatChunkScanFailure(kind: .contract, message: "expected a string, got \(kindOfValue())")
    }

    /// `created`: an integer or `null` as ``integer(in:nullable:)`` reads them, or a number
    /// with a fraction or exponent taken as ``ChatCompletionChunk/wholeSeconds(_:)`` takes it.
    mutating func timestamp() throws(ChatChunkScanFailure) -> Int64? {
        let start = index
        guard index < bytes.count, bytes[index] == UInt8(ascii: "-") || isDigit(bytes[index]), !(try scanNumber())
        else {
            index = start
            return try integer(in: Int64.min...Int64.max, nullable: true)
        }
        return ChatCompletionChunk.wholeSeconds(
            String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self))
    }

    /// A string, or `nil` for `null` when `nullable`; any other value fails.
    mutating func string(nullable: Bool) throws(ChatChunkScanFailure) -> String? {
        guard index < bytes.count else { throw failure(at: index, "unexpected end of input; expected a value") }
        if bytes[index] == UInt8(ascii: "\"") {
            return makeString(try scanString())
        }
        if nullable, try skipNull() { return nil }
        throw ChatChunkScanFailure(kind: .contract, message: "expected a string, got \(kindOfValue())")
    }

    /// An integer literal within `range`, or `nil` for `null` when `nullable`.
    mutating func integer(in range: ClosedRange<Int64>, nullable: Bool) throws(ChatChunkScanFailure)
        -> Int64?
    {
        guard index < bytes.count else { throw failure(at: index, "unexpected end of input; expected a value") }
        let first = bytes[index]
        guard first == UInt8(ascii: "-") || isDigit(first) else {
            if nullable, try skipNull() { return nil }
            throw ChatChunkScanFailure(kind: .contract, message: "expected an integer, got \(kindOfValue())")
        }
        if let value = plainInteger(first, in: range) { return value }
        let start = index
        let isInteger = try scanNumber()
        let end = index
        let bytes = bytes
        func literal() -> String { String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self) }
        guard isInteger else {
            throw ChatChunkScanFailure(
                kind: .contract, message: "expected an integer literal without fraction or exponent, got \(literal())")
        }
        var position = start
        let negative = bytes[position] == UInt8(ascii: "-")
        if negative { position += 1 }
        var magnitude: UInt64 = 0
        var overflow = false
        while position < index {
            let (times, o1) = magnitude.multipliedReportingOverflow(by: 10)
            let (sum, o2) = times.addingReportingOverflow(UInt64(bytes[position] &- UInt8(ascii: "0")))
            magnitude = sum
            overflow = overflow || o1 || o2
            position += 1
        }
        var value: Int64?
        if !overflow {
            if negative {
                if magnitude <= UInt64(Int64.max) + 1 { value = Int64(bitPattern: 0 &- magnitude) }
            } else if magnitude <= UInt64(Int64.max) {
                value = Int64(magnitude)
            }
        }
        guard let value, range.contains(value) else {
            throw ChatChunkScanFailure(
                kind: .contract, message: "integer \(literal()) is outside \(range.lowerBound)…\(range.upperBound)")
        }
        return value
    }

    /// A non-negative integer literal of at most 18 digits within `range` starting at `index`
    /// with the digit `first`, stepped over; `nil` (nothing consumed) for anything else, which
    /// the general way then reads and words (a leading zero, a fraction, an exponent, a sign,
    /// the end of the input, a value outside `range`).
    @inline(__always)
    private mutating func plainInteger(_ first: UInt8, in range: ClosedRange<Int64>) -> Int64? {
        guard isDigit(first) else { return nil }
        var value = Int64(first &- UInt8(ascii: "0"))
        var position = index + 1
        if first != UInt8(ascii: "0") {
            while position < bytes.count, position - index < 18, isDigit(bytes[position]) {
                value = value &* 10 &+ Int64(bytes[position] &- UInt8(ascii: "0"))
                position += 1
            }
        }
        guard position < bytes.count else { return nil }
        let next = bytes[position]
        guard !isDigit(next), next != UInt8(ascii: "."), next | 0x20 != UInt8(ascii: "e"), range.contains(value)
        else { return nil }
        index = position
        return value
    }

    /// The kind of the value at `index`, for messages (`a string`, `null`, …).
    func kindOfValue() -> String {
        guard index < bytes.count else { return "nothing" }
        switch bytes[index] {
        case UInt8(ascii: "\""): return "a string"
        case UInt8(ascii: "{"): return "an object"
        case UInt8(ascii: "["): return "an array"
        case UInt8(ascii: "t"), UInt8(ascii: "f"): return "a boolean"
        case UInt8(ascii: "n"): return "null"
        default: return "a number"
        }
    }

    // MARK: Values skipped (still checked)

    mutating func skipValue(depth: Int) throws(ChatChunkScanFailure) {
        guard index < bytes.count else { throw failure(at: index, "unexpected end of input; expected a value") }
        switch bytes[index] {
        case UInt8(ascii: "\""): _ = try scanString()
        case UInt8(ascii: "{"): try skipObject(depth: depth + 1)
        case UInt8(ascii: "["): try skipArray(depth: depth + 1)
        case UInt8(ascii: "t"): try expectLiteral("true")
        case UInt8(ascii: "f"): try expectLiteral("false")
        case UInt8(ascii: "n"): try expectLiteral("null")
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): _ = try scanNumber()
        default: throw failure(at: index, "unexpected \(describeByte(at: index)); expected a value")
        }
    }

    private mutating func skipObject(depth: Int) throws(ChatChunkScanFailure) {
        var more = try openObject(depth: depth)
        var members = 0
        while more {
            let key = try memberNameAndColon(hasEarlierMembers: members > 0)
            members += 1
            do throws(ChatChunkScanFailure) {
                try skipValue(depth: depth)
            } catch {
                throw error.within(.key(name(key)))
            }
            if key.owned { ownedKeyBytes.removeSubrange(key.start...) }
            more = try nextMember()
        }
    }

    private mutating func skipArray(depth: Int) throws(ChatChunkScanFailure) {
        try checkDepth(depth)
        index += 1  // [
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
            index += 1
            return
        }
        var count = 0
        while true {
            do throws(ChatChunkScanFailure) {
                try skipValue(depth: depth)
            } catch {
                throw error.within(.index(count))
            }
            count += 1
            guard try nextElement() else { return }
        }
    }

    func checkDepth(_ depth: Int) throws(ChatChunkScanFailure) {
        if depth > maximumDepth {
            throw ChatChunkScanFailure(
                kind: .limit, offset: index, message: "nesting is deeper than the limit of \(maximumDepth) levels")
        }
    }

    /// Steps over `literal` (`null`, `true` or `false`: four or five bytes, compared as a word
    /// and a byte rather than through `memcmp`).
    @inline(__always)
    mutating func expectLiteral(_ literal: StaticString) throws(ChatChunkScanFailure) {
        let count = literal.utf8CodeUnitCount
        guard bytes.count - index >= count, Self.sameLiteral(bytes.baseAddress! + index, literal.utf8Start, count)
        else {
            throw failure(at: index, "invalid literal; expected '\(literal)'")
        }
        index += count
    }

    @inline(__always)
    private static func sameLiteral(_ bytes: UnsafePointer<UInt8>, _ literal: UnsafePointer<UInt8>, _ count: Int)
        -> Bool
    {
        guard count == 4 || count == 5 else { return memcmp(bytes, literal, count) == 0 }
        let head =
            UnsafeRawPointer(bytes).loadUnaligned(as: UInt32.self)
            == UnsafeRawPointer(literal).loadUnaligned(as: UInt32.self)
        return head && (count == 4 || bytes[4] == literal[4])
    }

    /// Checks a number's grammar and steps over it; whether it is an integer literal.
    private mutating func scanNumber() throws(ChatChunkScanFailure) -> Bool {
        do {
            let (end, isInteger) = try JSONNumberGrammar.scan(bytes, from: index)
            index = end
            return isInteger
        } catch {
            throw failure(at: error.offset, error.message)
        }
    }

    @inline(__always)
    func isDigit(_ byte: UInt8) -> Bool {
        byte &- UInt8(ascii: "0") < 10
    }

    // MARK: Strings

    /// Checks a string (control characters, escapes, surrogate pairs, UTF-8) and steps over it:
    /// where its contents are, whether they hold escapes and whether they are ASCII.
    @inline(__always)
    mutating func scanString() throws(ChatChunkScanFailure) -> StringSpan {
        if let end = plainStringEnd(from: index + 1) {
            let start = index + 1
            index = end + 1
            return StringSpan(start: start, end: end, escaped: false, ascii: true)
        }
        return try scanStringByteByByte()
    }

    /// Where the closing quote of a string whose contents start at `start` is, when every byte
    /// before it is printable ASCII other than a backslash (most strings); `nil` otherwise.
    @inline(__always)
    private func plainStringEnd(from start: Int) -> Int? {
        guard let base = bytes.baseAddress else { return nil }
        let count = bytes.count
        var position = start
        while count - position >= 8 {
            let mask = Self.attention(UnsafeRawPointer(base + position).loadUnaligned(as: UInt64.self))
            if mask != 0 {
                position += mask.trailingZeroBitCount >> 3
                return base[position] == UInt8(ascii: "\"") ? position : nil
            }
            position += 8
        }
        while position < count {
            let byte = base[position]
            if byte == UInt8(ascii: "\"") { return position }
            if byte < 0x20 || byte >= 0x80 || byte == UInt8(ascii: "\\") { return nil }
            position += 1
        }
        return nil
    }

    /// ``scanString()`` for a string that needs a closer look: escapes, UTF-8, or a fault.
    private mutating func scanStringByteByByte() throws(ChatChunkScanFailure) -> StringSpan {
        let open = index
        index += 1  // "
        let start = index
        var escaped = false
        var ascii = true
        let count = bytes.count
        while index < count {
            // Eight bytes at a time while none is a quote, a backslash, a control or non-ASCII.
            while count - index >= 8 {
                let word = UnsafeRawPointer(bytes.baseAddress! + index).loadUnaligned(as: UInt64.self)
                let mask = Self.attention(word)
                if mask != 0 {
                    index += mask.trailingZeroBitCount >> 3
                    break
                }
                index += 8
            }
            guard index < count else { break }
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                index += 1
                return StringSpan(start: start, end: index - 1, escaped: escaped, ascii: ascii)
            }
            if byte == UInt8(ascii: "\\") {
                escaped = true
                try checkEscape()
            } else if byte < 0x20 {
                throw failure(at: index, "a string may not contain the control character \(hexByte(byte)) unescaped")
            } else if byte >= 0x80 {
                ascii = false
                try checkUTF8Sequence()
            } else {
                index += 1
            }
        }
        throw failure(at: open, "a string is not terminated")
    }

    /// The high bit of each byte of `word` that is `"`, `\`, below 0x20 or above 0x7F; exact
    /// for the lowest such byte (bytes above it may be marked falsely), which is all the scan
    /// uses (loads are little-endian).
    @inline(__always)
    private static func attention(_ word: UInt64) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        let quote = word ^ (ones &* 0x22)
        let backslash = word ^ (ones &* 0x5C)
        let zeroQuote = (quote &- ones) & ~quote
        let zeroBackslash = (backslash &- ones) & ~backslash
        let control = word &- ones &* 0x20
        return (zeroQuote | zeroBackslash | control | word) & highs
    }

    private mutating func checkEscape() throws(ChatChunkScanFailure) {
        let escapeStart = index
        index += 1  // backslash
        guard index < bytes.count else { throw failure(at: escapeStart, "a string is not terminated") }
        let byte = bytes[index]
        index += 1
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
            UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
            return
        case UInt8(ascii: "u"):
            let unit = try hex4(escapeStart: escapeStart)
            if (0xD800...0xDBFF).contains(unit) {
                guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u")
                else {
                    guard replacesUnpairedSurrogates else {
                        throw failure(
                            at: escapeStart, "a high surrogate escape must be followed by a low surrogate escape")
                    }
                    unpairedSurrogates += 1
                    return
                }
                if replacesUnpairedSurrogates {
                    // Paired only with a low surrogate escape; anything else leaves this one
                    // unpaired and the next escape to be checked on its own.
                    if let low = Self.hexValue(bytes, at: index + 2), (0xDC00...0xDFFF).contains(low) {
                        index += 6
                    } else {
                        unpairedSurrogates += 1
                    }
                    return
                }
                index += 2
                let low = try hex4(escapeStart: index - 2)
                guard (0xDC00...0xDFFF).contains(low) else {
                    throw failure(at: index - 6, "a high surrogate escape must be followed by a low surrogate escape")
                }
            } else if (0xDC00...0xDFFF).contains(unit) {
                guard replacesUnpairedSurrogates else {
                    throw failure(at: escapeStart, "a low surrogate escape without a high surrogate before it")
                }
                unpairedSurrogates += 1
            }
        default:
            let shown = byte >= 0x21 && byte < 0x7F ? String(Character(Unicode.Scalar(byte))) : hexByte(byte)
            throw failure(at: escapeStart, "invalid escape '\\\(shown)' in a string")
        }
    }

    private mutating func hex4(escapeStart: Int) throws(ChatChunkScanFailure) -> UInt16 {
        guard bytes.count - index >= 4 else {
            throw failure(at: escapeStart, "a \\u escape needs four hexadecimal digits")
        }
        var value: UInt16 = 0
        for _ in 0..<4 {
            guard let digit = Self.hexDigit(bytes[index]) else {
                throw failure(at: escapeStart, "a \\u escape needs four hexadecimal digits")
            }
            value = value << 4 | UInt16(digit)
            index += 1
        }
        return value
    }

    @inline(__always)
    private static func hexDigit(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// Checks one multi-byte UTF-8 sequence at `index` (Unicode's table 3-7: no overlong forms,
    /// no surrogates, nothing past U+10FFFF) and steps over it.
    private mutating func checkUTF8Sequence() throws(ChatChunkScanFailure) {
        let lead = bytes[index]
        let length: Int
        var secondRange: ClosedRange<UInt8> = 0x80...0xBF
        switch lead {
        case 0xC2...0xDF: length = 2
        case 0xE0:
            length = 3
            secondRange = 0xA0...0xBF
        case 0xE1...0xEC, 0xEE...0xEF: length = 3
        case 0xED:
            length = 3
            secondRange = 0x80...0x9F
        case 0xF0:
            length = 4
            secondRange = 0x90...0xBF
        case 0xF1...0xF3: length = 4
        case 0xF4:
            length = 4
            secondRange = 0x80...0x8F
        default: throw failure(at: index, "a string contains invalid UTF-8")
        }
        guard bytes.count - index >= length, secondRange.contains(bytes[index + 1]) else {
            throw failure(at: index, "a string contains invalid UTF-8")
        }
        for offset in 2..<max(2, length) where bytes[index + offset] & 0xC0 != 0x80 {
            throw failure(at: index, "a string contains invalid UTF-8")
        }
        index += length
    }

    /// The text of a checked string's contents, built from the checked bytes without a second
    /// validation (``scanString()`` checked the UTF-8, and unescaping writes only well-formed
    /// sequences: a surrogate escape is paired or written as U+FFFD). The ends of escaped
    /// contents are kept in ``lastStringEdges``.
    mutating func makeString(_ span: StringSpan) -> String {
        if !span.escaped {
            let contents = UnsafeBufferPointer(rebasing: bytes[span.start..<span.end])
            return String(copying: UTF8Span(unchecked: contents.span, isKnownASCII: span.ascii))
        }
        scratch.removeAll(keepingCapacity: true)
        lastStringEdges = unescape(span.start, span.end, into: &scratch)
        return scratch.withUnsafeBufferPointer { unescaped in
            // A `\u` escape may have written non-ASCII bytes into ASCII contents.
            let ascii = span.ascii && unescaped.allSatisfy { $0 < 0x80 }
            return String(copying: UTF8Span(unchecked: unescaped.span, isKnownASCII: ascii))
        }
    }

    /// Appends the unescaped bytes of a checked string's contents to `output`, an unpaired
    /// surrogate escape as U+FFFD; the unpaired ones that start or end the contents.
    @discardableResult
    func unescape(_ start: Int, _ end: Int, into output: inout [UInt8]) -> StringEdges {
        var edges = StringEdges()
        var position = start
        var runStart = start
        while position < end {
            guard bytes[position] == UInt8(ascii: "\\") else {
                position += 1
                continue
            }
            output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<position]))
            let byte = bytes[position + 1]
            position += 2
            switch byte {
            case UInt8(ascii: "b"): output.append(0x08)
            case UInt8(ascii: "f"): output.append(0x0C)
            case UInt8(ascii: "n"): output.append(0x0A)
            case UInt8(ascii: "r"): output.append(0x0D)
            case UInt8(ascii: "t"): output.append(0x09)
            case UInt8(ascii: "u"):
                let escapeStart = position - 2
                var scalar = UInt32(hexValue(at: position))
                position += 4
                if (0xD800...0xDBFF).contains(scalar), end - position >= 6, bytes[position] == UInt8(ascii: "\\"),
                    bytes[position + 1] == UInt8(ascii: "u"),
                    case let low = UInt32(hexValue(at: position + 2)), (0xDC00...0xDFFF).contains(low)
                {
                    position += 6
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                } else if (0xD800...0xDFFF).contains(scalar) {
                    // Unpaired (only a chunk's reading lets one through): U+FFFD.
                    if scalar >= 0xDC00, escapeStart == start { edges.leadingLow = UInt16(scalar) }
                    if scalar < 0xDC00, position == end { edges.trailingHigh = UInt16(scalar) }
                    scalar = 0xFFFD
                }
                output.append(contentsOf: UTF8.encode(Unicode.Scalar(scalar)!)!)
            default: output.append(byte)  // " \ /
            }
            runStart = position
        }
        output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<end]))
        return edges
    }

    private func hexValue(at position: Int) -> UInt16 {
        var value: UInt16 = 0
        for offset in 0..<4 { value = value << 4 | UInt16(Self.hexDigit(bytes[position + offset]) ?? 0) }
        return value
    }

    /// The four hexadecimal digits at `position`, or `nil` when there are not four.
    private static func hexValue(_ bytes: UnsafeBufferPointer<UInt8>, at position: Int) -> UInt16? {
        guard bytes.count - position >= 4 else { return nil }
        var value: UInt16 = 0
        for offset in 0..<4 {
            guard let digit = hexDigit(bytes[position + offset]) else { return nil }
            value = value << 4 | UInt16(digit)
        }
        return value
    }

    // MARK: Helpers

    /// Steps over white space; one comparison when there is none (compact JSON).
    @inline(__always)
    mutating func skipWhitespace() {
        guard index < bytes.count, bytes[index] <= 0x20 else { return }
        skipWhitespaceRun()
    }

    @inline(never)
    private mutating func skipWhitespaceRun() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x0A, 0x0D, 0x09: index += 1
            default: return
            }
        }
    }

    func failure(at offset: Int, _ message: String) -> ChatChunkScanFailure {
        ChatChunkScanFailure(kind: .syntax, offset: offset, message: message)
    }

    private func describeByte(at offset: Int) -> String {
        JSONByteText.describe(bytes[offset])
    }

    private func hexByte(_ byte: UInt8) -> String {
        JSONByteText.hex(byte)
    }
}
