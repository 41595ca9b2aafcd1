extension ChatCompletionChunkScanner {
    /// Notes the ends of the text member just read into the current choice (``lastStringEdges``,
    /// reset before it was read) when an unpaired surrogate escape starts or ends it.
    @inline(__always)
    mutating func noteEdges(_ field: ChatChunkSurrogateCarry.Field) {
        guard !lastStringEdges.isEmpty else { return }
        noteEdges(lastStringEdges, field)
    }

    private mutating func noteEdges(_ edges: StringEdges, _ field: ChatChunkSurrogateCarry.Field) {
        guard surrogateEdges.count < Self.maximumSurrogateEdges else { return }
        surrogateEdges.append(
            ChatChunkSurrogateCarry.Edge(
                choice: currentChoice, field: field, leadingLow: edges.leadingLow, trailingHigh: edges.trailingHigh))
    }

    /// Notes the ends of each call's `function.arguments` in the `tool_calls` array at `start`
    /// (already checked), numbering the calls as ``ChatToolCallDelta/list(from:)`` does: the
    /// objects among the first ``ChatToolCallDelta/maximumPerChunk`` elements, each reading its
    /// first `function` member and that object's first `arguments` member. `index` is left
    /// where it was.
    mutating func noteArgumentEdges(at start: Int) {
        let resume = index
        defer { index = resume }
        index = start
        // The array was checked: nothing here fails, and a failure would only leave a pair
        // unjoined.
        try? walkToolCalls()
    }

    private mutating func walkToolCalls() throws(ChatChunkScanFailure) {
        guard index < bytes.count, bytes[index] == UInt8(ascii: "[") else { return }
        index += 1
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") { return }
        var position = 0
        var call = 0
        repeat {
            guard position < ChatToolCallDelta.maximumPerChunk else { return }
            if bytes[index] == UInt8(ascii: "{") {
                try walkCall(call)
                call += 1
            } else {
                try skipValue(depth: 5)
            }
            position += 1
        } while try nextElement()
    }

    private mutating func walkCall(_ call: Int) throws(ChatChunkScanFailure) {
        var seenFunction = false
        var more = try openObject(depth: 6)
        while more {
            let key = try memberNameAndColon(hasEarlierMembers: true)
            let isFunction = !seenFunction && withKeyBytes(key) { Self.equal($0, "function") }
            if key.owned { ownedKeyBytes.removeSubrange(key.start...) }
            if isFunction {
                seenFunction = true
                if bytes[index] == UInt8(ascii: "{") {
                    try walkFunction(call)
                } else {
                    try skipValue(depth: 6)
                }
            } else {
                try skipValue(depth: 6)
            }
            more = try nextMember()
        }
    }

    private mutating func walkFunction(_ call: Int) throws(ChatChunkScanFailure) {
        var seenArguments = false
        var more = try openObject(depth: 7)
        while more {
            let key = try memberNameAndColon(hasEarlierMembers: true)
            let isArguments = !seenArguments && withKeyBytes(key) { Self.equal($0, "arguments") }
            if key.owned { ownedKeyBytes.removeSubrange(key.start...) }
            if isArguments, bytes[index] == UInt8(ascii: "\"") {
                let span = try scanString()
                if span.escaped {
                    scratch.removeAll(keepingCapacity: true)
                    let edges = unescape(span.start, span.end, into: &scratch)
                    if !edges.isEmpty { noteEdges(edges, .arguments(call: call)) }
                }
            } else {
                try skipValue(depth: 7)
            }
            seenArguments = seenArguments || isArguments
            more = try nextMember()
        }
    }
}
