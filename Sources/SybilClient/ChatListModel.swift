import Observation
import SybilCore
import SybilNet
import SybilStore

/// The chats list (seed 004, SPEC §5): recent conversations from the history store, newest
/// first; a new chat; opening one (the list holds the open conversation's model); deleting one.
/// Switching to the chats tab and returning to the foreground ask for a warm-up, as entering a
/// chat does; whether a health check runs is the warm-up's decision (single flight, 60 s warm).
@MainActor
@Observable
public final class ChatListModel {
    /// How many conversations the list shows.
    nonisolated public static let recentLimit = 200

    /// Recent conversations, newest first.
    public private(set) var conversations: [ChatConversationSummary] = []
    /// The conversation on screen, if any.
    public private(set) var openConversation: ChatConversationModel?
    /// What went wrong last, as a sentence a person can act on.
    public private(set) var lastError: String?
    /// The messages of every chat that were not sent and whose text is not in a composer
    /// (SPEC §2 "nothing lost"), kept between launches when it was made with a
    /// ``UndeliveredMessagesPersistence``: a new chat's move to its conversation when it is
    /// saved, a deleted conversation's to the new chat.
    public let undeliveredMessages: ChatUndeliveredMessages

    @ObservationIgnored private let streaming: any ChatStreaming
    @ObservationIgnored private let store: any ChatHistoryStore
    @ObservationIgnored private let model: String
    @ObservationIgnored private let now: @Sendable () -> Int64
    @ObservationIgnored private let ids: any IDGenerator
    @ObservationIgnored private let warmUp: (any ChatWarmUp)?
    @ObservationIgnored private let systemPrompt: String?
    @ObservationIgnored private let streamingFor: (@MainActor (String) -> any ChatStreaming)?

    /// A list over `store`; the conversations it opens stream through `streaming` with `model`
    /// (and `systemPrompt` before their messages, when given). With `streamingFor`, each
    /// conversation streams through the stream it makes for the conversation's own model (a
    /// saved one's, or one chosen for it), new ones starting with `model`. `undelivered` keeps
    /// the texts not sent (an app keeps them between launches, SPEC §2).
    public init(
        streaming: any ChatStreaming, store: any ChatHistoryStore, model: String,
        now: @escaping @Sendable () -> Int64, ids: any IDGenerator, warmUp: (any ChatWarmUp)?,
        systemPrompt: String? = nil, streamingFor: (@MainActor (String) -> any ChatStreaming)? = nil,
        undelivered: ChatUndeliveredMessages = ChatUndeliveredMessages()
    ) {
        self.undeliveredMessages = undelivered
        self.systemPrompt = systemPrompt
        self.streamingFor = streamingFor
        self.streaming = streaming
        self.store = store
        self.model = model
        self.now = now
        self.ids = ids
        self.warmUp = warmUp
    }

    /// Reads the recent conversations again.
    public func refresh() async {
        do {
            conversations = try await store.recentConversations(limit: Self.recentLimit).map(
                ChatConversationSummary.init)
            lastError = nil
        } catch {
            lastError = "The chats could not be loaded (\(error)). Try again."
        }
    }

    /// Opens a new, empty chat (saved with its first message) and returns it.
    @discardableResult
    public func newChat() async -> ChatConversationModel {
        let conversation = makeConversation(id: nil)
        openConversation = conversation
        await conversation.enter()
        return conversation
    }

    /// Opens the saved conversation `id` (the one already open stays as it is) and returns it.
    @discardableResult
    public func open(_ id: String) async -> ChatConversationModel {
        if let openConversation, openConversation.conversationId == id { return openConversation }
        let conversation = makeConversation(id: id)
        openConversation = conversation
        await conversation.enter()
        return conversation
    }

    // MARK: Texts not sent

    /// The messages of `place` not sent and not back in a composer, oldest first.
    public func undelivered(in place: ChatPlace) -> [ChatUndeliveredMessages.Message] {
        undeliveredMessages.messages(in: place)
    }

    /// A text the person sent in `place` that was not sent, for `reason` (a file in it could
    /// not be attached, a reply was still arriving, it could not be saved), given back to the
    /// composer the person sees, which holds `visibleDraft` (`nil`: `place` is not on screen):
    /// restored when that composer can take it (blank, or holding the same text), else kept,
    /// since a draft is never replaced.
    public func giveBackUnsent(
        _ text: String, reason: String, in place: ChatPlace, toComposerHolding visibleDraft: String?
    ) -> ChatUndeliveredMessages.HandOver {
        let message = ChatUndeliveredMessages.Message(
            id: undeliveredMessages.makeId(prefix: "unsent"), chat: place, text: text, cause: .notSent, reason: reason)
        return undeliveredMessages.giveBack(message, toComposerHolding: visibleDraft)
    }

    /// The person asks for the oldest message kept in `place` back into a composer holding
    /// `visibleDraft`: it leaves the list when that composer can take it, and stays otherwise.
    public func takeBackOldest(in place: ChatPlace, toComposerHolding visibleDraft: String)
        -> ChatUndeliveredMessages.TakeBack
    {
        undeliveredMessages.takeBackOldest(in: place, toComposerHolding: visibleDraft)
    }

    /// Deletes conversation `id`; when it is open, its reply is stopped and it closes. Its
    /// messages kept undelivered go to the new chat.
    public func delete(_ id: String) async {
        if let openConversation, openConversation.conversationId == id {
            openConversation.stop()
            self.openConversation = nil
        }
        do {
            try await store.deleteConversation(id: id)
            conversations.removeAll { $0.id == id }
            undeliveredMessages.move(from: .conversation(id), to: .newChat)
            lastError = nil
        } catch {
            lastError = "The chat could not be deleted (\(error)). Try again."
        }
    }

    /// The person switched to the chats tab.
    public func switchedTab() {
        warmUp?.requestWarmUp(.switchedTab)
    }

    /// The app came back to the foreground.
    public func returnedToForeground() {
        warmUp?.requestWarmUp(.returnedToForeground)
    }

    private func makeConversation(id: String?) -> ChatConversationModel {
        let conversation = ChatConversationModel(
            streaming: streaming, store: store, model: model, now: now, ids: ids, warmUp: warmUp,
            conversationId: id, systemPrompt: systemPrompt, streamingFor: streamingFor)
        conversation.onConversationChange = { [weak self] changed in
            // A new chat saved with its first message: what it kept is now that chat's.
            if id == nil { self?.undeliveredMessages.move(from: .newChat, to: .conversation(changed.id)) }
            self?.show(changed)
        }
        return conversation
    }

    /// Puts `record` where it belongs in the newest-first list.
    private func show(_ record: ChatConversationSummary) {
        conversations.removeAll { $0.id == record.id }
        let index = conversations.firstIndex { $0.updatedAt < record.updatedAt } ?? conversations.endIndex
        conversations.insert(record, at: index)
        if conversations.count > Self.recentLimit { conversations.removeLast() }
    }
}
