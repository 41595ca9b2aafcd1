/// One dispatched Server-Sent Event.
public struct ServerSentEvent: Sendable, Hashable {
    /// The event type: the last `event` field, or `message` when none was given.
    public var type: String
    /// The `data` lines joined with LF.
    public var data: String
    /// The last event ID in force when the event was dispatched.
    public var lastEventId: String

    /// Creates an event.
    public init(type: String = "message", data: String, lastEventId: String = "") {
        self.type = type
        self.data = data
        self.lastEventId = lastEventId
    }
}
