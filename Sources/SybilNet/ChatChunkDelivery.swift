import SybilWire

/// One chunk of a streamed chat reply and the event id it came with
/// (``SSEChatTransport/deliveries(for:)``; `SSEChatTransport.Delivery` names it too).
public struct ChatChunkDelivery: Sendable, Hashable, BoundedCost {
    /// The chunk.
    public var chunk: ChatCompletionChunk
    /// The event's id when the server numbers its events (a decimal `id:`), else `nil`.
    public var eventID: Int64?
    /// The bytes of the event it came in (what it costs a bounded stream).
    public var bytes: Int

    /// Creates a delivery.
    public init(chunk: ChatCompletionChunk, eventID: Int64?, bytes: Int = 256) {
        self.chunk = chunk
        self.eventID = eventID
        self.bytes = bytes
    }

    /// The bytes of its event.
    public var boundedCost: Int { bytes }
}
