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
/// ranges, duplicate names in the objects it reads), without building a JSON tree.
struct ChatCompletionChunkScanner {
    /// Where one member name's bytes are: in the document (`owned == false`) or, when it had
    /// escapes, unescaped in ``ownedKeyBytes``.
    struct KeyEntry {
        var start: Int
        var count: Int
        var owned: Bool
        /// A cheap summary of the bytes: names that differ in it differ.
        var fingerprint: UInt64
    }

    /// The names seen so far in one object being read, for the duplicate rule: the first
    /// ``ChatCompletionChunkScanner/linearScopeLimit`` in place (no allocation), the rest in a
    /// set, so that a hostile object of many members costs linear time.
    private struct KeyScope {
        var entries = InlineArray<16, KeyEntry>(repeating: KeyEntry(start: 0, count: 0, owned: false, fingerprint: 0))
        var members = 0
        var large: Set<[UInt8]>?
    }

    /// Which known member a name is.
    private enum Known {
        case id, model, created, choices, usage, error
        case index, finishReason, delta
        case role, content, reasoningContent, reasoning
        case promptTokens, completionTokens, totalTokens
    }

    /// What a deferred `reasoning` member held.
    private enum Deferred {
        case absent
        case text(start: Int, end: Int, escaped: Bool)
        case wrongKind(String)
    }

    static let maximumDepth = JSONReader.Limits.standard.maxDepth
    private static let linearScopeLimit = 16

    private let bytes: UnsafeBufferPointer<UInt8>
    private var index = 0
    /// Unescaped bytes of names that had escapes.
    var ownedKeyBytes: [UInt8]
    /// Unescaped bytes of the string being built.
    var scratch: [UInt8]

    init(bytes: UnsafeBufferPointer<UInt8>, ownedKeyBytes: [UInt8], scratch: [UInt8]) {
        self.bytes = bytes
        self.ownedKeyBytes = ownedKeyBytes
        self.scratch = scratch
        self.ownedKeyBytes.removeAll(keepingCapacity: true)
    }

    // MARK: Document

    /// Reads the whole document: a chunk, or `.errorMember` when the root object has an `error`
    /// member (an error frame, which ``APIErrorBody`` reads).
    mutating func scanDocument() throws(ChatChunkScanFailure) -> ChatCompletionChunkDecoder.Outcome {
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
        guard let chunk = try scanRoot() else { return .errorMember }
        try expectEnd()
        return .chunk(chunk)
    }

    private mutating func expectEnd() throws(ChatChunkScanFailure) {
        skipWhitespace()
        if index < bytes.count {
            throw failure(at: index, "unexpected \(describeByte(at: index)) after the end of the JSON value")
        }
    }

    /// The root object; `nil` when it has an `error` member.
    private mutating func scanRoot() throws(ChatChunkScanFailure) -> ChatCompletionChunk? {
        var id: String?
        var model: String?
        var created: Int64?
        var choices: [ChatCompletionChunk.Choice]?
        var usage: ChatCompletionUsage?
        var scope = KeyScope()
        var more = try openObject(depth: 1)
        while more {
            let key = try memberName(in: &scope)
            do throws(ChatChunkScanFailure) {
                switch known(key, depth: 1) {
                case .id: id = try string(nullable: false)
                case .model: model = try string(nullable: true)
                case .created: created = try integer(in: Int64.min...Int64.max, nullable: true)
                case .choices: choices = try scanChoices()
                case .usage: usage = try scanUsage()
                case .error: return nil
                default: try skipValue(depth: 1)
                }
            } catch {
                throw error.within(.key(name(key)))
            }
            more = try nextMember()
        }
        guard let id else { throw .contract("id", "required member is missing") }
        guard let choices else { throw .contract("choices", "required member is missing") }
        return ChatCompletionChunk(id: id, model: model, created: created, choices: choices, usage: usage)
    }

    private mutating func scanChoices() throws(ChatChunkScanFailure) -> [ChatCompletionChunk.Choice] {
        guard index < bytes.count, bytes[index] == UInt8(ascii: "[") else {
            throw ChatChunkScanFailure(kind: .contract, message: "expected an array, got \(kindOfValue())")
        }
        index += 1
        skipWhitespace()
        var choices: [ChatCompletionChunk.Choice] = []
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
            index += 1
            return choices
        }
        while true {
            do throws(ChatChunkScanFailure) {
                guard index < bytes.count, bytes[index] == UInt8(ascii: "{") else {
                    throw ChatChunkScanFailure(kind: .contract, message: "expected an object, got \(kindOfValue())")
                }
                choices.append(try scanChoice())
            } catch {
                throw error.within(.index(choices.count))
            }
            guard try nextElement() else { return choices }
        }
    }

    private mutating func scanChoice() throws(ChatChunkScanFailure) -> ChatCompletionChunk.Choice {
        var position: Int64?
        var finishReason: ChatCompletionChunk.FinishReason?
        var role: String?
        var content: String?
        var reasoningContent: String?
        var reasoning = Deferred.absent
        var scope = KeyScope()
        var more = try openObject(depth: 3)
        while more {
            let key = try memberName(in: &scope)
            do throws(ChatChunkScanFailure) {
                switch known(key, depth: 3) {
                case .index: position = try integer(in: 0...Int64(Int32.max), nullable: false)
                case .finishReason: finishReason = try string(nullable: true).map(ChatCompletionChunk.FinishReason.init)
                case .delta:
                    if try skipNull() { break }
                    guard bytes[index] == UInt8(ascii: "{") else {
                        throw ChatChunkScanFailure(kind: .contract, message: "expected an object, got \(kindOfValue())")
                    }
                    try scanDelta(
                        role: &role, content: &content, reasoningContent: &reasoningContent, reasoning: &reasoning)
                default: try skipValue(depth: 3)
                }
            } catch {
                throw error.within(.key(name(key)))
            }
            more = try nextMember()
        }
        guard let position else { throw .contract("index", "required member is missing") }
        var choice = ChatCompletionChunk.Choice(
            index: position, role: role, content: content, reasoning: reasoningContent, finishReason: finishReason)
        // As the tree decoder: `reasoning` is read only when `reasoning_content` is not there.
        if choice.reasoning == nil {
            switch reasoning {
            case .absent: break
            case .text(let start, let end, let escaped): choice.reasoning = makeString(start, end, escaped: escaped)
            case .wrongKind(let kind):
                throw ChatChunkScanFailure.contract("reasoning", "expected a string, got \(kind)").within(.key("delta"))
            }
        }
        return choice
    }

    private mutating func scanDelta(
        role: inout String?, content: inout String?, reasoningContent: inout String?, reasoning: inout Deferred
    ) throws(ChatChunkScanFailure) {
        var scope = KeyScope()
        var more = try openObject(depth: 4)
        while more {
            let key = try memberName(in: &scope)
            do throws(ChatChunkScanFailure) {
                switch known(key, depth: 4) {
                case .role: role = try string(nullable: true)
                case .content: content = try string(nullable: true)
                case .reasoningContent: reasoningContent = try string(nullable: true)
                case .reasoning:
                    if try skipNull() {
                        reasoning = .absent
                    } else if bytes[index] == UInt8(ascii: "\"") {
                        let (start, end, escaped) = try scanString()
                        reasoning = .text(start: start, end: end, escaped: escaped)
                    } else {
                        let kind = kindOfValue()
                        try skipValue(depth: 4)
                        reasoning = .wrongKind(kind)
                    }
                default: try skipValue(depth: 4)
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
            let key = try memberName(in: &scope)
            do throws(ChatChunkScanFailure) {
                switch known(key, depth: 2) {
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
        guard let prompt else { throw .contract("prompt_tokens", "required member is missing") }
        guard let completion else { throw .contract("completion_tokens", "required member is missing") }
        guard let total else { throw .contract("total_tokens", "required member is missing") }
        return ChatCompletionUsage(promptTokens: prompt, completionTokens: completion, totalTokens: total)
    }

    // MARK: Objects read member by member

    /// Steps into an object at `index`; whether it has a member.
    private mutating func openObject(depth: Int) throws(ChatChunkScanFailure) -> Bool {
        try checkDepth(depth)
        index += 1  // {
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
            index += 1
            return false
        }
        return true
    }

    /// Reads a member name and its colon, noting the name for the duplicate rule.
    private mutating func memberName(in scope: inout KeyScope) throws(ChatChunkScanFailure) -> KeyEntry {
        let key = try memberNameAndColon(hasEarlierMembers: scope.members > 0)
        if isDuplicate(key, in: &scope) {
            let text = name(key)
            throw .contract(text, JSONObjectReader.duplicateKey(text))
        }
        return key
    }

    private mutating func memberNameAndColon(hasEarlierMembers: Bool) throws(ChatChunkScanFailure) -> KeyEntry {
        guard index < bytes.count else { throw failure(at: index, "unexpected end of input; expected a member name") }
        guard bytes[index] == UInt8(ascii: "\"") else {
            if bytes[index] == UInt8(ascii: "}") && hasEarlierMembers {
                throw failure(at: index, "trailing comma before '}'")
            }
            throw failure(at: index, "unexpected \(describeByte(at: index)); expected a member name in quotes")
        }
        let (start, end, escaped) = try scanString()
        var key = KeyEntry(start: start, count: end - start, owned: false, fingerprint: 0)
        if escaped {
            let ownedStart = ownedKeyBytes.count
            unescape(start, end, into: &ownedKeyBytes)
            key = KeyEntry(start: ownedStart, count: ownedKeyBytes.count - ownedStart, owned: true, fingerprint: 0)
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

    /// After a member's value: whether another member follows (`,`) or the object ended (`}`).
    private mutating func nextMember() throws(ChatChunkScanFailure) -> Bool {
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
    private mutating func nextElement() throws(ChatChunkScanFailure) -> Bool {
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
    private func withKeyBytes<R>(_ key: KeyEntry, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        if !key.owned { return body(UnsafeBufferPointer(rebasing: bytes[key.start..<key.start + key.count])) }
        return ownedKeyBytes.withUnsafeBufferPointer { owned in
            body(UnsafeBufferPointer(rebasing: owned[key.start..<key.start + key.count]))
        }
    }

    /// The name as text (for paths and messages).
    private func name(_ key: KeyEntry) -> String {
        withKeyBytes(key) { String(decoding: $0, as: UTF8.self) }
    }

    /// Notes `key` in `scope`; whether an earlier member of the object had the same name
    /// (compared by code points, as ``JSONMemberName`` does: byte by byte).
    private mutating func isDuplicate(_ key: KeyEntry, in scope: inout KeyScope) -> Bool {
        if scope.large != nil {
            scope.members += 1
            return !scope.large!.insert(withKeyBytes(key) { Array($0) }).inserted
        }
        var key = key
        key.fingerprint = withKeyBytes(key, Self.fingerprint)
        for position in 0..<scope.members {
            let earlier = scope.entries[position]
            if earlier.fingerprint == key.fingerprint, earlier.count == key.count, sameBytes(earlier, key) {
                return true
            }
        }
        if scope.members < Self.linearScopeLimit {
            scope.entries[scope.members] = key
            scope.members += 1
            return false
        }
        var set = Set<[UInt8]>(minimumCapacity: 64)
        for position in 0..<scope.members { set.insert(withKeyBytes(scope.entries[position]) { Array($0) }) }
        set.insert(withKeyBytes(key) { Array($0) })
        scope.large = set
        scope.members += 1
        return false
    }

    /// The length and the first and last eight bytes of a name, mixed.
    @inline(__always)
    private static func fingerprint(_ name: UnsafeBufferPointer<UInt8>) -> UInt64 {
        let count = name.count
        var mixed = UInt64(truncatingIfNeeded: count) &* 0x9E37_79B9_7F4A_7C15
        guard let base = name.baseAddress else { return mixed }
        if count >= 8 {
            let first = UnsafeRawPointer(base).loadUnaligned(as: UInt64.self)
            let last = UnsafeRawPointer(base + count - 8).loadUnaligned(as: UInt64.self)
            mixed ^= first ^ (last &* 0xFF51_AFD7_ED55_8CCD)
        } else {
            var word: UInt64 = 0
            for offset in 0..<count { word |= UInt64(base[offset]) << UInt64(8 * offset) }
            mixed ^= word
        }
        return mixed
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
    private static func equal(_ name: UnsafeBufferPointer<UInt8>, _ literal: StaticString) -> Bool {
        name.count == literal.utf8CodeUnitCount && memcmp(name.baseAddress!, literal.utf8Start, name.count) == 0
    }

    // MARK: Known values

    /// Consumes `null` when it is next; whether it was.
    private mutating func skipNull() throws(ChatChunkScanFailure) -> Bool {
        guard index < bytes.count else { throw failure(at: index, "unexpected end of input; expected a value") }
        guard bytes[index] == UInt8(ascii: "n") else { return false }
        try expectLiteral("null")
        return true
    }

    /// A string, or `nil` for `null` when `nullable`; any other value fails.
    private mutating func string(nullable: Bool) throws(ChatChunkScanFailure) -> String? {
        guard index < bytes.count else { throw failure(at: index, "unexpected end of input; expected a value") }
        if bytes[index] == UInt8(ascii: "\"") {
            let (start, end, escaped) = try scanString()
            return makeString(start, end, escaped: escaped)
        }
        if nullable, try skipNull() { return nil }
        throw ChatChunkScanFailure(kind: .contract, message: "expected a string, got \(kindOfValue())")
    }

    /// An integer literal within `range`, or `nil` for `null` when `nullable`.
    private mutating func integer(in range: ClosedRange<Int64>, nullable: Bool) throws(ChatChunkScanFailure)
        -> Int64?
    {
        guard index < bytes.count else { throw failure(at: index, "unexpected end of input; expected a value") }
        let first = bytes[index]
        guard first == UInt8(ascii: "-") || isDigit(first) else {
            if nullable, try skipNull() { return nil }
            throw ChatChunkScanFailure(kind: .contract, message: "expected an integer, got \(kindOfValue())")
        }
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

    /// The kind of the value at `index`, for messages (`a string`, `null`, …).
    private func kindOfValue() -> String {
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

    private mutating func skipValue(depth: Int) throws(ChatChunkScanFailure) {
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

    private func checkDepth(_ depth: Int) throws(ChatChunkScanFailure) {
        if depth > Self.maximumDepth {
            throw ChatChunkScanFailure(
                kind: .limit, offset: index, message: "nesting is deeper than the limit of \(Self.maximumDepth) levels")
        }
    }

    private mutating func expectLiteral(_ literal: StaticString) throws(ChatChunkScanFailure) {
        let count = literal.utf8CodeUnitCount
        guard bytes.count - index >= count,
            memcmp(bytes.baseAddress! + index, literal.utf8Start, count) == 0
        else {
            throw failure(at: index, "invalid literal; expected '\(literal)'")
        }
        index += count
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
    private func isDigit(_ byte: UInt8) -> Bool {
        byte &- UInt8(ascii: "0") < 10
    }

    // MARK: Strings

    /// Checks a string (control characters, escapes, surrogate pairs, UTF-8) and steps over it:
    /// where its contents are and whether they hold escapes.
    private mutating func scanString() throws(ChatChunkScanFailure) -> (start: Int, end: Int, escaped: Bool) {
        let open = index
        index += 1  // "
        let start = index
        var escaped = false
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
                return (start, index - 1, escaped)
            }
            if byte == UInt8(ascii: "\\") {
                escaped = true
                try checkEscape()
            } else if byte < 0x20 {
                throw failure(at: index, "a string may not contain the control character \(hexByte(byte)) unescaped")
            } else if byte >= 0x80 {
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
                    throw failure(at: escapeStart, "a high surrogate escape must be followed by a low surrogate escape")
                }
                index += 2
                let low = try hex4(escapeStart: index - 2)
                guard (0xDC00...0xDFFF).contains(low) else {
                    throw failure(at: index - 6, "a high surrogate escape must be followed by a low surrogate escape")
                }
            } else if (0xDC00...0xDFFF).contains(unit) {
                throw failure(at: escapeStart, "a low surrogate escape without a high surrogate before it")
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

    /// The text of a checked string's contents.
    private mutating func makeString(_ start: Int, _ end: Int, escaped: Bool) -> String {
        if !escaped { return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self) }
        scratch.removeAll(keepingCapacity: true)
        unescape(start, end, into: &scratch)
        return String(decoding: scratch, as: UTF8.self)
    }

    /// Appends the unescaped bytes of a checked string's contents to `output`.
    private func unescape(_ start: Int, _ end: Int, into output: inout [UInt8]) {
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
                var scalar = UInt32(hexValue(at: position))
                position += 4
                if (0xD800...0xDBFF).contains(scalar) {
                    let low = UInt32(hexValue(at: position + 2))
                    position += 6
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                }
                output.append(contentsOf: UTF8.encode(Unicode.Scalar(scalar)!)!)
            default: output.append(byte)  // " \ /
            }
            runStart = position
        }
        output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<end]))
    }

    private func hexValue(at position: Int) -> UInt16 {
        var value: UInt16 = 0
        for offset in 0..<4 { value = value << 4 | UInt16(Self.hexDigit(bytes[position + offset]) ?? 0) }
        return value
    }

    // MARK: Helpers

    @inline(__always)
    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x0A, 0x0D, 0x09: index += 1
            default: return
            }
        }
    }

    private func failure(at offset: Int, _ message: String) -> ChatChunkScanFailure {
        ChatChunkScanFailure(kind: .syntax, offset: offset, message: message)
    }

    private func describeByte(at offset: Int) -> String {
        JSONByteText.describe(bytes[offset])
    }

    private func hexByte(_ byte: UInt8) -> String {
        JSONByteText.hex(byte)
    }
}
