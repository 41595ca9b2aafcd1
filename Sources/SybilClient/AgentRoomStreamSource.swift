import SybilWire

/// Where the Agent room model gets its stream updates: ``AgentRoomStream`` over a WebSocket,
/// or a test's script.
public protocol AgentRoomStreamSource: Sendable {
    /// Follows the room until the consumer stops iterating. Each connection replays from the
    /// cursor `replayFrom` gives when that connection opens (the last merged cursor).
    func updates(replayFrom: @escaping @Sendable () async -> AgentCursor?) -> AsyncStream<AgentRoomStreamUpdate>
}
