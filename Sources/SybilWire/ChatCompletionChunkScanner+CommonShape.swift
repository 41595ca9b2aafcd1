extension ChatCompletionChunkScanner {
    /// Reads the shape nearly every chunk of a stream has, compact and in the order servers
    /// write it, in one straight pass; `nil` (the document may still be valid) sends it the
    /// general way, ``scanDocument()``, which starts again at the first byte and words any
    /// error. The shape:
    ///
    ///     {"id":S[,"object":S][,"created":I|null][,"model":S|null][,"service_tier":S|null]
    ///      [,"system_fingerprint":S|null],"choices":[{"index":I,"delta":{["role":S|null]
    ///      [,"content":S|null]}[,"logprobs":null][,"finish_reason":S|null]}][,"usage":null]
    ///      [,"obfuscation":S]}
    ///
    /// with no white space, each member at most once and in that order (so none is named
    /// twice), and nothing after the closing brace. Every string is checked as the general way
    /// checks it (escapes, UTF-8) and every integer range-checked the same way, so what this
    /// accepts the general way accepts too, giving the same chunk (differential tests); what
    /// it does not know (another member, another order, white space, two choices, a usage
    /// object, `reasoning_content`, `tool_calls`, an unpaired surrogate escape, a fault) it
    /// leaves alone. Member names are
    /// compared as words of their bytes, quotes, colon and punctuation included, and the
    /// values are read straight into the chunk: no name is looked up, no object keeps a scope.
    mutating func scanCommonShape() -> ChatCompletionChunk? {
        do throws(ChatChunkScanFailure) {
            guard take(#"{"id":""#) else { return nil }
            index -= 1  // the string's opening quote
            guard let id = try recentString(nullable: false, model: false) else { return nil }
            if take(#","object":""#) {
                index -= 1
                _ = try scanString()
            }
            var created: Int64?
            if take(#","created":"#) { created = try integer(in: Int64.min...Int64.max, nullable: true) }
            var model: String?
            if take(#","model":"#) { model = try recentString(nullable: true, model: true) }
            if take(#","service_tier":"#) { try skipStringOrNull() }
            if take(#","system_fingerprint":"#) { try skipStringOrNull() }
            guard take(#","choices":[{"index":"#) else { return nil }
            let choiceIndex: Int64
            if bytes.count - index >= 2, isDigit(bytes[index]), bytes[index + 1] == UInt8(ascii: ",") {
                // One digit (nearly always 0), as ``integer(in:nullable:)`` reads it.
                choiceIndex = Int64(bytes[index] &- UInt8(ascii: "0"))
                index += 1
            } else {
                guard let value = try integer(in: 0...Int64(Int32.max), nullable: false) else { return nil }
                choiceIndex = value
            }
            guard take(#","delta":{"#) else { return nil }
            var role: String?
            var content: String?
            if take(#""role":"#) {
                role = try stringOrNull()
                if take(#","content":"#) { content = try stringOrNull() }
            } else if take(#""content":"#) {
                content = try stringOrNull()
            }
            guard take("}") else { return nil }
            _ = take(#","logprobs":null"#)
            var finishReason: ChatCompletionChunk.FinishReason?
            if take(#","finish_reason":"#), !take("null") {
                guard let text = try stringOrNull() else { return nil }
                finishReason = ChatCompletionChunk.FinishReason(text)
            }
            guard take("}]") else { return nil }
            _ = take(#","usage":null"#)
            if take(#","obfuscation":""#) {
                index -= 1
                _ = try scanString()
            }
            guard take("}"), index == bytes.count else { return nil }
            // An unpaired surrogate escape, or one held from an earlier chunk: the general way
            // notes where it stands and joins it.
            guard unpairedSurrogates == 0, !holdsSurrogates else { return nil }
            // The same model and creation time as the chunk before: the box it had.
            let extras: ChatCompletionChunk.Extras?
            if model == nil, created == nil {
                extras = nil
            } else if let recent = recentExtras, recent.holds(model: model, created: created, usage: nil) {
                extras = recent
            } else {
                extras = .make(model: model, created: created, usage: nil, otherChoices: [])
                if extras != nil { recentExtras = extras }
            }
            return ChatCompletionChunk(
                id: id, index: choiceIndex, role: role, content: content, finishReason: finishReason, extras: extras)
        } catch {
            return nil
        }
    }

    /// A string, or `nil` for `null`; any other value fails (``string(nullable:)`` inlined).
    @inline(__always)
    private mutating func stringOrNull() throws(ChatChunkScanFailure) -> String? {
        if take("null") { return nil }
        guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
            throw ChatChunkScanFailure(kind: .contract, message: "expected a string")
        }
        return makeString(try scanString())
    }

    /// Steps over a string (checked) or `null`; any other value fails.
    @inline(__always)
    private mutating func skipStringOrNull() throws(ChatChunkScanFailure) {
        guard index < bytes.count else { throw failure(at: index, "unexpected end of input; expected a value") }
        if bytes[index] == UInt8(ascii: "\"") {
            _ = try scanString()
        } else {
            try expectLiteral("null")
        }
    }

    /// Steps over `literal` when the bytes at `index` are exactly it; whether they were.
    /// Compared as words (the last one overlapping the one before when the length is not a
    /// multiple of eight), never reading outside the document or the literal.
    @inline(__always)
    private mutating func take(_ literal: StaticString) -> Bool {
        let count = literal.utf8CodeUnitCount
        guard bytes.count - index >= count else { return false }
        let here = UnsafeRawPointer(bytes.baseAddress! + index)
        let expected = UnsafeRawPointer(literal.utf8Start)
        if count >= 8 {
            var offset = 0
            while count - offset > 8 {
                guard
                    here.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
                        == expected.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
                else { return false }
                offset += 8
            }
            guard
                here.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self)
                    == expected.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self)
            else { return false }
        } else if count >= 4 {
            guard
                here.loadUnaligned(as: UInt32.self) == expected.loadUnaligned(as: UInt32.self),
                here.loadUnaligned(fromByteOffset: count - 4, as: UInt32.self)
                    == expected.loadUnaligned(fromByteOffset: count - 4, as: UInt32.self)
            else { return false }
        } else {
            for offset in 0..<count where here.load(fromByteOffset: offset, as: UInt8.self) != literal.utf8Start[offset]
            {
                return false
            }
        }
        index += count
        return true
    }
}
