import Observation
import SybilWire

/// The messages a person wrote that were not delivered and whose text is not in a composer:
/// SPEC §2 "nothing lost". A message that left an outbox undelivered (refused for good by the
/// desktop or the Agent room, or discarded for a cause on this device), or that was never sent
/// (an attachment could not be added, it could not be saved), goes back into the composer when
/// the composer can take it (``giveBack(_:toComposerHolding:)``: blank, or holding the same
/// text); otherwise it is kept here, per chat, oldest first, until the person takes it back
/// (``takeBackOldest(in:toComposerHolding:)``), since a draft is never replaced. Several
/// rejected at once (steers queued offline into a run that finished) are each kept, each with
/// its reason.
///
/// `Chat` names where a message was written: a workspace session
/// (``WorkspaceUndeliveredMessages``), the Agent room of an API base
/// (``AgentUndeliveredMessages``), an ordinary chat (``ChatUndeliveredMessages``). One list
/// serves every composer of its kind (the app's, across openings of a chat): a message given
/// back after its chat was left is there when the chat is opened again. It lives as long as
/// the process, as a draft does.
@MainActor
@Observable
public final class UndeliveredMessages<Chat: Hashable & Sendable> {
    /// One message kept.
    public struct Message: Sendable, Hashable, Identifiable {
        /// Why it was not delivered.
        public enum Cause: Sendable, Hashable {
            /// The receiving end (the desktop, the Agent room) refused it for good.
            case rejected
            /// Something on this device means it can never be sent; the receiver never saw it.
            case discarded
            /// It was not sent at all (an attachment could not be added, it could not be
            /// saved, the chat could not take it yet) while the composer held another draft.
            case notSent
        }

        /// The outbox entry's id (operation id, request id), or one made for a message that
        /// never reached an outbox.
        public var id: String
        /// The chat it was written in.
        public var chat: Chat
        /// What the person wrote, whole.
        public var text: String
        /// New turn or steer (a steer goes into a running workspace turn; every message of the
        /// Agent room and of an ordinary chat is a new turn).
        public var mode: WorkspaceSendMode
        /// How many attachments it carried (they are not kept; the text is).
        public var attachmentCount: Int
        /// Why it was not delivered.
        public var cause: Cause
        /// The reason the receiver or this device gave.
        public var reason: String

        /// A message kept as it is.
        public init(
            id: String, chat: Chat, text: String, mode: WorkspaceSendMode = .send, attachmentCount: Int = 0,
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
    }

    /// What giving messages back did.
    public struct HandOver: Sendable, Hashable {
        /// The message whose text goes into the composer the person sees (it is not kept).
        public var restored: Message?
        /// The messages that stay kept, oldest first.
        public var kept: [Message]

        /// A hand-over of `restored` that leaves `kept` in the list.
        public init(restored: Message?, kept: [Message]) {
            self.restored = restored
            self.kept = kept
        }
    }

    /// What ``takeBackOldest(in:toComposerHolding:)`` did.
    public enum TakeBack: Sendable, Hashable {
        /// The oldest kept message left the list: its text goes into the composer.
        case restored(Message)
        /// The composer holds another draft, which is never replaced: the message stays kept.
        case draftInTheWay(Message)
        /// No message of this chat is kept.
        case nothingKept
    }

    /// The most messages kept for one chat: each is one the person wrote and did not take
    /// back; past it the oldest leaves (as ``WorkspaceOutboxSender/maximumUndeliveredKept``).
    public static var maximumKeptPerChat: Int { WorkspaceOutboxSender.maximumUndeliveredKept }

    /// Every message kept, oldest first.
    public private(set) var messages: [Message] = []

    /// An empty list.
    public init() {}

    /// The messages kept for `chat`, oldest first.
    public func messages(in chat: Chat) -> [Message] {
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
    public func take(_ id: String, in chat: Chat) -> Message? {
        guard let index = messages.firstIndex(where: { $0.id == id && $0.chat == chat }) else { return nil }
        return messages.remove(at: index)
    }

    /// Moves every message kept for `old` to `new` (a new chat that was saved under its id).
    public func move(from old: Chat, to new: Chat) {
        guard old != new else { return }
        for index in messages.indices where messages[index].chat == old { messages[index].chat = new }
        while messages.count(where: { $0.chat == new }) > Self.maximumKeptPerChat,
            let oldest = messages.firstIndex(where: { $0.chat == new })
        {
            messages.remove(at: oldest)
        }
    }

    /// Whether a composer holding `draft` can take `text` back: it is blank (nothing the
    /// person typed would be replaced) or holds that very text (``ComposerRestore``).
    public static func composer(holding draft: String, takes text: String) -> Bool {
        if case .restore = ComposerRestore.decide(rejectedText: text, reason: "", currentDraft: draft) { return true }
        return false
    }

    /// Gives `message` back to the composer the person sees, which holds `visibleDraft`
    /// (`nil`: no composer of the message's chat is on screen): restored when that composer
    /// can take it, else kept, since a draft is never replaced. A blank text has nothing to
    /// keep: it counts as given back.
    public func giveBack(_ message: Message, toComposerHolding visibleDraft: String?) -> HandOver {
        if message.text.allSatisfy(\.isWhitespace) { return HandOver(restored: message, kept: []) }
        if let visibleDraft, Self.composer(holding: visibleDraft, takes: message.text) {
            return HandOver(restored: message, kept: [])
        }
        keep(message)
        return HandOver(restored: nil, kept: [message])
    }

    /// The person asks for the oldest message kept for `chat` back into a composer holding
    /// `visibleDraft`: it leaves the list when that composer can take it, and stays otherwise.
    public func takeBackOldest(in chat: Chat, toComposerHolding visibleDraft: String) -> TakeBack {
        guard let oldest = messages.first(where: { $0.chat == chat }) else { return .nothingKept }
        guard Self.composer(holding: visibleDraft, takes: oldest.text) else { return .draftInTheWay(oldest) }
        return take(oldest.id, in: chat).map(TakeBack.restored) ?? .nothingKept
    }
}
