/// The close codes of `agent/stream` that belong to the Agent room contract
/// (docs/api/agent-room.md), shared by the server that sends them and the client that reads
/// them. (Close `4503`, attachments unavailable, is SybilHTTP's `WebSocketCloseCode`.)
public enum AgentStreamClose {
    /// `4410`: the server's history does not reach the `after` the client asked to replay from
    /// (it is beyond the newest message the server has: the server restarted without its
    /// history, or was restored from an older copy). Replaying from that cursor would skip the
    /// server's messages up to it, so the client starts afresh from the newest page and
    /// reconnects from that page's cursor, after its usual backoff. Sent only to a client that
    /// asks for it (``historyLostParameter``): one that does not know the code would reconnect
    /// with the same cursor forever.
    public static let historyLost: UInt16 = 4410

    /// The reason the server sends with ``historyLost``.
    public static let historyLostReason = "cursor beyond history"

    /// The stream's query parameter with which a client asks for ``historyLost``
    /// (`agent/stream?after=<cursor>&historyLost=close`); its only value is
    /// ``historyLostOptIn``. Without it the server replays from `after` as it always did.
    public static let historyLostParameter = "historyLost"

    /// The value of ``historyLostParameter``.
    public static let historyLostOptIn = "close"
}
