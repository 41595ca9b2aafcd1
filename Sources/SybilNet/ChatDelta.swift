import SybilWire

/// One step of a streamed reply as the chat pages see it: the next piece of the answer, the
/// next piece of the model's reasoning, why the reply ended (in its last step) and its token
/// counts (from the usage chunk, which has no choices). Any part may be absent; a step with
/// none is never delivered.
public struct ChatDelta: Sendable, Hashable {
    /// Why a reply stopped (`stop`, `length`, …).
    public typealias FinishReason = ChatCompletionChunk.FinishReason
    /// A reply's token counts.
    public typealias Usage = ChatCompletionUsage

    /// The next piece of the answer (empty when this step carries none).
    public var text: String
    /// The next piece of the model's reasoning (empty when this step carries none).
    public var reasoning: String
    /// Why the reply ended, in the step that ends it.
    public var finishReason: ChatCompletionChunk.FinishReason?
    /// The reply's token counts, when the server sends them.
    public var usage: ChatCompletionUsage?
    /// Increments of tool calls the model makes (shown, never run).
    public var toolCalls: [ChatToolCallDelta]

    /// Creates a step.
    public init(
        text: String = "", reasoning: String = "", finishReason: ChatCompletionChunk.FinishReason? = nil,
        usage: ChatCompletionUsage? = nil, toolCalls: [ChatToolCallDelta] = []
    ) {
        self.text = text
        self.reasoning = reasoning
        self.finishReason = finishReason
        self.usage = usage
        self.toolCalls = toolCalls
    }

    /// The step a chunk carries, or `nil` when it carries nothing (a role-only first chunk).
    public init?(_ chunk: ChatCompletionChunk) {
        self.init(
            text: chunk.content, reasoning: chunk.reasoning, finishReason: chunk.finishReason, usage: chunk.usage,
            toolCalls: chunk.toolCalls)
        if isEmpty { return nil }
    }

    /// Whether the step carries nothing.
    public var isEmpty: Bool {
        text.isEmpty && reasoning.isEmpty && finishReason == nil && usage == nil && toolCalls.isEmpty
    }
}

extension ChatDelta: BoundedCost {
    /// Its text, reasoning and tool-call bytes, plus a little for the rest.
    public var boundedCost: Int {
        var cost = text.utf8.count + reasoning.utf8.count + 64
        for call in toolCalls { cost += (call.name?.utf8.count ?? 0) + (call.arguments?.utf8.count ?? 0) + 32 }
        return cost
    }
}
