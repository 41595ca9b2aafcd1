/// Joins the UTF-16 surrogate pairs a chat stream splits between two chunks' deltas: what a
/// ``ChatCompletionChunkDecoder`` kept for a stream does after reading each chunk.
///
/// A JavaScript gateway that cuts a reply by UTF-16 code unit sends `"content":"Hi \ud83d"` in
/// one chunk and `"content":"\ude00 there"` in the next (RFC 8259 §8.2 lets JSON carry such
/// unpaired halves). Read alone, each half is U+FFFD. Kept for the stream, a text member
/// (a choice's `content` or reasoning, a tool call's `arguments`) that ends with an unpaired
/// high surrogate is handed on without it, and the surrogate is held for the next non-empty
/// text of the same member (same choice `index`, same call `index`): a low surrogate escape
/// that starts it makes the one character with it; anything else, the choice's finish reason
/// or ``finish()`` makes it U+FFFD. So the texts handed on, put together, are what reading
/// all the escaped pieces as one JSON string gives. At most ``maximumHeld`` surrogates are
/// held; past them one is U+FFFD where it stands.
struct ChatChunkSurrogateCarry: Sendable {
    /// A text member of a choice.
    enum Field: Hashable, Sendable {
        /// `delta.content`.
        case content
        /// `delta.reasoning_content` (or `delta.reasoning`).
        case reasoning
        /// The `function.arguments` of the choice's tool-call increment at this position in
        /// ``ChatCompletionChunk/Choice/toolCalls`` (an edge), or with this call `index` (what
        /// is held).
        case arguments(call: Int)
    }

    /// A text member of one chunk that starts or ends with an unpaired surrogate escape (read
    /// as U+FFFD there), as the scanner notes it.
    struct Edge: Sendable, Hashable {
        /// The choice's position in the chunk's `choices`.
        var choice: Int
        /// The member.
        var field: Field
        /// The low surrogate that starts the text, or 0.
        var leadingLow: UInt16
        /// The high surrogate that ends the text, or 0.
        var trailingHigh: UInt16
    }

    /// What a held surrogate belongs to.
    private struct Key: Hashable {
        var choice: Int64
        var field: Field
    }

    /// The most surrogates held at once.
    static let maximumHeld = 64

    private static let replacement: Unicode.Scalar = "\u{FFFD}"

    private var held: [Key: UInt16] = [:]
    /// The id of the last chunk, for the chunk ``finish()`` makes.
    private var lastID = ""

    /// Whether a surrogate is held for a later chunk.
    var isHolding: Bool { !held.isEmpty }

    /// `chunk` with the surrogates held from earlier chunks put in and this chunk's trailing
    /// ones taken out; `edges` are the scanner's, in the order of their choices.
    mutating func apply(to chunk: ChatCompletionChunk, edges: [Edge]) -> ChatCompletionChunk {
        lastID = chunk.id
        var choices = chunk.choices
        var changed = false
        var nextEdge = 0
        for position in choices.indices {
            let start = nextEdge
            while nextEdge < edges.count, edges[nextEdge].choice == position { nextEdge += 1 }
            let mine = edges[start..<nextEdge]
            guard !mine.isEmpty || isHolding else { continue }
            let before = choices[position]
            var choice = before
            let finishing = choice.finishReason != nil
            func edge(_ field: Field) -> Edge? { mine.first { $0.field == field } }
            choice.content = resolve(
                Key(choice: choice.index, field: .content), choice.content, edge(.content), finishing: finishing)
            choice.reasoning = resolve(
                Key(choice: choice.index, field: .reasoning), choice.reasoning, edge(.reasoning), finishing: finishing)
            for call in choice.toolCalls.indices {
                let key = Key(choice: choice.index, field: .arguments(call: choice.toolCalls[call].index))
                choice.toolCalls[call].arguments = resolve(
                    key, choice.toolCalls[call].arguments, edge(.arguments(call: call)), finishing: finishing)
            }
            if finishing { release(into: &choice) }
            if choice != before {
                choices[position] = choice
                changed = true
            }
        }
        guard changed else { return chunk }
        var result = chunk
        result.choices = choices
        return result
    }

    /// A chunk with each surrogate still held as U+FFFD (the stream ended without the text it
    /// was waiting for), or `nil` when none is; nothing is held after it.
    mutating func finish() -> ChatCompletionChunk? {
        guard isHolding else { return nil }
        var choices: [ChatCompletionChunk.Choice] = []
        for index in Set(held.keys.map(\.choice)).sorted() {
            var choice = ChatCompletionChunk.Choice(index: index)
            release(into: &choice)
            choices.append(choice)
        }
        return ChatCompletionChunk(id: lastID, choices: choices)
    }

    /// One member's text of this chunk: the surrogate held for it first (joined with the low
    /// surrogate that starts the text, else U+FFFD), the high surrogate that ends it held back.
    private mutating func resolve(_ key: Key, _ text: String?, _ edge: Edge?, finishing: Bool) -> String? {
        guard var text else { return nil }
        if let high = held[key], !text.isEmpty {
            held[key] = nil
            var scalars = text.unicodeScalars
            if let low = edge?.leadingLow, low != 0, scalars.first == Self.replacement,
                let joined = Unicode.Scalar(0x10000 + (UInt32(high) - 0xD800) << 10 + (UInt32(low) - 0xDC00))
            {
                scalars.removeFirst()
                text = String(Character(joined)) + String(scalars)
            } else {
                text = String(Character(Self.replacement)) + text
            }
        }
        if let high = edge?.trailingHigh, high != 0, !finishing, held.count < Self.maximumHeld,
            text.unicodeScalars.last == Self.replacement
        {
            held[key] = high
            var scalars = text.unicodeScalars
            scalars.removeLast()
            text = String(scalars)
        }
        return text
    }

    /// Puts every surrogate held for `choice`'s index into it as U+FFFD, at the end of its
    /// member's text.
    private mutating func release(into choice: inout ChatCompletionChunk.Choice) {
        let keys = held.keys.filter { $0.choice == choice.index }
        guard !keys.isEmpty else { return }
        let replacement = String(Character(Self.replacement))
        var calls: [Int] = []
        for key in keys {
            held[key] = nil
            switch key.field {
            case .content: choice.content = (choice.content ?? "") + replacement
            case .reasoning: choice.reasoning = (choice.reasoning ?? "") + replacement
            case .arguments(let call): calls.append(call)
            }
        }
        for call in calls.sorted() {
            if let position = choice.toolCalls.lastIndex(where: { $0.index == call }) {
                choice.toolCalls[position].arguments = (choice.toolCalls[position].arguments ?? "") + replacement
            } else {
                choice.toolCalls.append(ChatToolCallDelta(index: call, arguments: replacement))
            }
        }
    }
}
