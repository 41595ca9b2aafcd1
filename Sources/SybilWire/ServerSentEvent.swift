/// One dispatched Server-Sent Event.
///
/// The data is kept as the bytes of the joined `data` lines, so that a consumer that parses
/// it (JSON chunks, mostly) never pays for a `String` it does not need; ``data`` decodes it.
public struct ServerSentEvent: Sendable, Hashable {
    /// The event type: the last `event` field, or `message` when none was given.
    public var type: String
    /// The `data` lines joined with LF, as UTF-8 bytes exactly as received.
    public var dataBytes: [UInt8]
    /// The last event ID in force when the event was dispatched.
    public var lastEventId: String

    /// Creates an event from text.
    public init(type: String = "message", data: String, lastEventId: String = "") {
        self.init(type: type, dataBytes: Array(data.utf8), lastEventId: lastEventId)
    }

    /// Creates an event from the bytes of its data.
    public init(type: String = "message", dataBytes: [UInt8], lastEventId: String = "") {
        self.type = type
        self.dataBytes = dataBytes
        self.lastEventId = lastEventId
    }

    /// The data decoded as UTF-8, with U+FFFD replacing invalid sequences (WHATWG rule).
    public var data: String {
        String(decoding: dataBytes, as: UTF8.self)
    }
}
