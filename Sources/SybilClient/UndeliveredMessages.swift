import Observation
import SybilStore
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
/// the process, as a draft does; with a ``UndeliveredMessagesPersistence`` it is also kept
/// between launches: every change is written (and flushed) before the list changes in memory,
/// so a message shown as kept survives a crash, and the list is read back when it is made.
/// No message leaves the list for a count (each is a text the person wrote, and only the
/// person takes it back); what bounds it is the document a launch reads back: a change that
/// would make it larger is kept in memory and not saved, ``saveProblem`` says why. A list
/// meant to be kept whose store could not be opened lives in memory and says so
/// (``storeProblem``), so the person is not led to believe it outlasts the app.
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

    /// How many messages of one chat a composer remembers as kept since its last hand-over
    /// (as ``WorkspaceOutboxSender/maximumUndeliveredKept``). The list itself lets none leave
    /// for a count: it is bounded by what its document may hold
    /// (``UndeliveredMessagesPersistence/maximumDocumentBytes``).
    public nonisolated static var maximumKeptPerChat: Int { WorkspaceOutboxSender.maximumUndeliveredKept }

    /// Every message kept, oldest first.
    public private(set) var messages: [Message] = []
    /// Why the list could not be read back at launch, if it could not.
    public private(set) var loadProblem: String?
    /// Why the last change could not be saved (the list holds it in memory all the same);
    /// `nil` once a change is saved.
    public private(set) var saveProblem: String?
    /// Why the list is not kept between launches although it was meant to be (its store could
    /// not be opened, ``opening(store:persistence:)``): it holds its messages only until the app
    /// quits. `nil` for a list with a ``persistence``, or one made in memory on purpose.
    public let storeProblem: String?
    /// Where the list is kept between launches (none: in memory only).
    @ObservationIgnored public let persistence: UndeliveredMessagesPersistence<Chat>?
    /// Counts the ids made for messages that never reached an outbox.
    @ObservationIgnored private var madeIds = 0
    /// Whether the document on disk could not be read at launch: a save would replace the
    /// texts in it, so it is read again first.
    @ObservationIgnored private var documentLeftUnread = false

    /// An empty list, in memory only.
    public init() {
        persistence = nil
        storeProblem = nil
    }

    /// An empty list in memory only, because the store meant to keep it between launches could
    /// not be opened: `storeProblem` says why, for the person.
    public init(storeProblem: String) {
        persistence = nil
        self.storeProblem = storeProblem
    }

    /// The list kept by `persistence`, read back from it.
    public init(persistence: UndeliveredMessagesPersistence<Chat>) {
        self.persistence = persistence
        storeProblem = nil
        let loaded = persistence.load()
        messages = loaded.messages
        loadProblem = loaded.problem
        documentLeftUnread = loaded.leftUnread
    }

    /// The list kept in the store `openStore` opens, by the persistence `persistence` makes over
    /// it; when the store cannot be opened (an unwritable data folder), a list in memory whose
    /// ``storeProblem`` says so, never a silent one.
    public static func opening(
        store openStore: () throws -> any KeyValueStore,
        persistence: (any KeyValueStore) -> UndeliveredMessagesPersistence<Chat>
    ) -> UndeliveredMessages {
        let store: any KeyValueStore
        do {
            store = try openStore()
        } catch {
            return UndeliveredMessages(storeProblem: "The messages kept undelivered cannot be saved: \(error)")
        }
        return UndeliveredMessages(persistence: persistence(store))
    }

    /// An id for a message that never reached an outbox: `prefix-n`, kept by no message of
    /// the list (a list read back at launch holds ids an earlier run made).
    public func makeId(prefix: String) -> String {
        while true {
            madeIds += 1
            let id = "\(prefix)-\(madeIds)"
            if !messages.contains(where: { $0.id == id }) { return id }
        }
    }

    /// Saves `new` as the list, then makes it the list in memory; the list changes even when
    /// the save failed (``saveProblem`` says why), since dropping a text is worse, unless
    /// `changesUnsaved` is false (the caller holds another saved copy). Returns whether it was
    /// saved.
    @discardableResult
    private func replace(with new: [Message], changesUnsaved: Bool = true) -> Bool {
        var new = new
        var saved = true
        var readAgain = false
        if let persistence {
            if documentLeftUnread {
                // Saving now would replace texts an earlier run kept: they are read first.
                let again = persistence.load()
                guard !again.leftUnread else {
                    saveProblem =
                        "The messages kept undelivered could not be saved: the list saved earlier could not be read, and saving would replace it. \(again.problem ?? "")"
                    if changesUnsaved { messages = new }
                    return false
                }
                readAgain = true
                let earlier = again.messages.filter { old in !new.contains { $0.id == old.id && $0.chat == old.chat } }
                new = earlier + new
            }
            do {
                try persistence.save(new)
                saveProblem = nil
            } catch {
                saveProblem = "The messages kept undelivered could not be saved: \(error)"
                saved = false
            }
        }
        // The texts read again are in memory (or on disk) only once the list changes.
        guard saved || changesUnsaved else { return false }
        messages = new
        if readAgain { documentLeftUnread = false }
        return saved
    }

    /// The messages kept for `chat`, oldest first.
    public func messages(in chat: Chat) -> [Message] {
        messages.filter { $0.chat == chat }
    }

    /// Keeps `message` (once: a message with the same id already kept stays as it is), saved
    /// before the list changes. Returns whether the list is saved with it (`false` only when
    /// the save failed: it is kept in memory all the same).
    @discardableResult
    public func keep(_ message: Message) -> Bool {
        guard !messages.contains(where: { $0.id == message.id && $0.chat == message.chat }) else {
            return saveProblem == nil
        }
        return replace(with: messages + [message])
    }

    /// Keeps `message` only when the list is saved with it, for a caller that holds another
    /// saved copy (an outbox entry) and keeps that one otherwise: on a failed save the list
    /// stays as it was and ``saveProblem`` says why.
    /// Returns whether it is kept and saved (a message with the same id already kept counts
    /// when the list is saved). A list whose store could not be opened (``storeProblem``)
    /// saves nothing, so it keeps nothing here: the caller's saved copy outlasts the app.
    public func keepIfSaved(_ message: Message) -> Bool {
        if let storeProblem {
            saveProblem = storeProblem
            return false
        }
        guard !messages.contains(where: { $0.id == message.id && $0.chat == message.chat }) else {
            return saveProblem == nil
        }
        return replace(with: messages + [message], changesUnsaved: false)
    }

    /// Takes the message `id` of `chat` out of the list (the person has it back), saved before
    /// the list changes; `nil` when it is not kept.
    @discardableResult
    public func take(_ id: String, in chat: Chat) -> Message? {
        guard let index = messages.firstIndex(where: { $0.id == id && $0.chat == chat }) else { return nil }
        var new = messages
        let message = new.remove(at: index)
        replace(with: new)
        return message
    }

    /// Moves every message kept for `old` to `new` (a new chat that was saved under its id).
    public func move(from old: Chat, to new: Chat) {
        guard old != new, messages.contains(where: { $0.chat == old }) else { return }
        var moved = messages
        for index in moved.indices where moved[index].chat == old { moved[index].chat = new }
        replace(with: moved)
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
