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
