import Observation
import SybilTimeline
import SybilWire

/// The workspace messages that left the outbox undelivered (rejected for good by the desktop,
/// or discarded for a cause on this device), or were never sent, and whose text is not in a
/// composer: SPEC §2
/// "nothing lost", §4.5. A final rejection puts the text back in the composer when the draft
/// can be restored; each other one is kept here, per chat, oldest first, until the person
/// takes it back (``take(_:in:)``). Several rejected at once (steers queued offline into a run
/// that finished) are each kept, each with its reason.
///
/// One list serves every composer of an outbox (the app's, across openings of a chat): a
/// message rejected after its chat was left is there when the chat is opened again. It lives
/// as long as the process, as a draft does.
@MainActor
@Observable
public final class WorkspaceUndeliveredMessages {
    /// One message kept.
    public struct Message: Sendable, Hashable, Identifiable {
        /// Why it left the outbox.
        public enum Cause: Sendable, Hashable {
            /// The desktop rejected it for good.
            case rejected
            /// Something on this device means it can never be sent; the desktop never saw it.
            case discarded
            /// It was not sent at all (an attachment could not be uploaded, it could not be
            /// saved) while the composer held another draft.
            case notSent
        }

        /// The outbox entry's operation id.
        public var id: String
        /// The chat it was written in.
        public var chat: WorkspaceChatKey
        /// What the person wrote, whole.
        public var text: String
        /// New turn or steer.
        public var mode: WorkspaceSendMode
        /// How many attachments it carried (they are not kept; the text is).
        public var attachmentCount: Int
        /// Why it left the outbox.
        public var cause: Cause
        /// The reason the desktop or this device gave.
        public var reason: String

        /// A message kept as it is.
        public init(
            id: String, chat: WorkspaceChatKey, text: String, mode: WorkspaceSendMode, attachmentCount: Int,
            cause: Cause, reason: String
        ) {
            self.id = id
            self.chat = chat
            self.text = text
            self.mode = mode
            self.attachmentCount = attachmentCount
            self.cause = cause
            self.reason = reason
        }

        /// A message kept for `entry`, which left the outbox for `cause` and `reason`.
        public init(entry: WorkspaceOutboxEntry, cause: Cause, reason: String) {
            id = entry.operationId
            chat = entry.chat
            text = entry.mutation.text
            mode = entry.mode
            attachmentCount = entry.mutation.attachments.count + entry.stagedAttachments.count
            self.cause = cause
            self.reason = reason
        }
    }

    /// The most messages kept for one chat: each is one the person wrote and did not take
    /// back; past it the oldest leaves (as ``WorkspaceOutboxSender/maximumUndeliveredKept``).
    public static let maximumKeptPerChat = WorkspaceOutboxSender.maximumUndeliveredKept

    /// Every message kept, oldest first.
    public private(set) var messages: [Message] = []

    /// An empty list.
    public init() {}

    /// The messages kept for `chat`, oldest first.
    public func messages(in chat: WorkspaceChatKey) -> [Message] {
        messages.filter { $0.chat == chat }
    }

    /// Keeps `message` (once: a message with the same id already kept stays as it is).
    public func keep(_ message: Message) {
        guard !messages.contains(where: { $0.id == message.id && $0.chat == message.chat }) else { return }
        messages.append(message)
        if messages.count(where: { $0.chat == message.chat }) > Self.maximumKeptPerChat,
            let oldest = messages.firstIndex(where: { $0.chat == message.chat })
        {
            messages.remove(at: oldest)
        }
    }

    /// Takes the message `id` of `chat` out of the list (the person has it back); `nil` when
    /// it is not kept.
    public func take(_ id: String, in chat: WorkspaceChatKey) -> Message? {
        guard let index = messages.firstIndex(where: { $0.id == id && $0.chat == chat }) else { return nil }
        return messages.remove(at: index)
    }
}
