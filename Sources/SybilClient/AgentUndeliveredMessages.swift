import SybilCore
import SybilStore
import SybilWire

/// The Agent room messages a person wrote that were not delivered (refused for good and
/// discarded, or never queued) and whose text is not in a composer, per room (the outbox's
/// API base): SPEC §2 "nothing lost", §6. ``AgentRoomComposer`` keeps them.
public typealias AgentUndeliveredMessages = UndeliveredMessages<AgentOutboxScope>

extension UndeliveredMessages.Message where Chat == AgentOutboxScope {
    /// A message kept for `entry` of the room `scope`, which left the outbox for `cause`: the
    /// reason is the entry's failure without its advice (the message is out of the outbox, so
    /// Retry and Discard no longer apply).
    public init(entry: AgentOutboxEntry, in scope: AgentOutboxScope, cause: Cause) {
        var reason = entry.failure?.description ?? "It was discarded."
        if reason.hasSuffix(AgentRefusalAdvice.genericEnding) {
            reason = String(reason.dropLast(AgentRefusalAdvice.genericEnding.count))
        }
        self.init(
            id: entry.requestId, chat: scope, text: entry.text, attachmentCount: entry.attachments.count, cause: cause,
            reason: reason)
    }
}

extension UndeliveredMessagesPersistence where Chat == AgentOutboxScope {
    /// The Agent room's kept texts in `store`, one document per room, beside its outbox's
    /// name (`agent-undelivered-<hash of the base URL>`).
    public static func agentRoom(_ scope: AgentOutboxScope, in store: any KeyValueStore) -> Self {
        UndeliveredMessagesPersistence(
            store: store, key: "agent-undelivered-" + Hex.padded(FNV1a64.hash(utf8: scope.baseURL)),
            encodeChat: { .string($0.baseURL) },
            decodeChat: { (value, path) throws(JSONError) -> AgentOutboxScope in
                // Only this room's messages are in its document.
                guard case .string(let text) = value, text == scope.baseURL else {
                    throw .contract(path, "must be this room's base URL")
                }
                return scope
            })
    }
}
