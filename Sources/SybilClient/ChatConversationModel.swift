import Observation
import SybilCore
import SybilNet
import SybilStore
import SybilWire

/// A chat page's view model (seed 004, SPEC §5): the saved transcript, the reply streaming into
/// it, and the "typing" state, which every ending turns off. It reaches the network only through
/// a ``ChatStreaming`` (so it cannot bypass the send gate) and keeps everything in a
/// ``ChatHistoryStore``: the person's message is saved before the request leaves, the reply is
/// saved as `.streaming` when the request leaves and updated as text arrives (at most one write
/// in flight; the newest text goes next; the ending is always written), so a crash keeps what
/// arrived. Entering the chat asks for a warm-up.
@MainActor
@Observable
public final class ChatConversationModel {
    /// The reason shown for a reply a previous process left streaming.
    public static let interruptedReason = "The app closed before the reply finished."
    /// The sentence shown when the conversation to open is not saved (deleted meanwhile).
    public static let missingReason = "This chat is no longer saved. Start a new chat."

    /// The saved conversation as shown, `nil` until the first message of a new chat is saved.
    public private(set) var conversation: ChatConversationSummary?
    /// The messages in order, as the screen shows them; the last one may be the reply
    /// streaming in.
    public private(set) var messages: [ChatTranscriptMessage] = []
    /// Whether a reply is on its way (the composer shows "typing").
    public private(set) var isTyping = false
    /// Whether ``enter()`` is still loading the saved conversation (sending waits for it, or a
    /// reply would start on a transcript about to be replaced).
    public private(set) var isLoading = false
    /// What went wrong last, as a sentence a person can act on; `nil` after a good reply.
    public private(set) var lastError: String?
    /// The latest reply's reasoning, finish reason and usage as they arrived (its text is in
    /// ``messages``); emptied when a reply starts. Not saved.
    public internal(set) var replyDetails = ChatDelta()
    /// The tool calls of the reply still arriving, put together as they stream (Sybil never
    /// runs them; the app shows a card for each, `sybil ask` a note). When the reply ends they
    /// move to its message (``ChatTranscriptMessage/toolCalls``, saved with it) and this is emptied.
    public internal(set) var replyToolCalls: [ChatToolCall] = []
    /// The model each request asks for: the one given, replaced by the one saved with the
    /// conversation when ``enter()`` loads it, and by ``select(model:)``.
    public private(set) var model: String

    /// Called on the main actor whenever ``conversation`` changes (created, or a message bumped
    /// it), so a list can show the change without reading the store again.
    @ObservationIgnored public var onConversationChange: (@MainActor (ChatConversationSummary) -> Void)?

    /// The saved conversation's row (its system prompt is sent with every request); setting it
    /// publishes ``conversation``.
    @ObservationIgnored private var record: ChatConversationRecord? {
        didSet { conversation = record.map(ChatConversationSummary.init) }
    }

    @ObservationIgnored private let streaming: any ChatStreaming
    @ObservationIgnored private let streamingFor: (@MainActor (String) -> any ChatStreaming)?
    @ObservationIgnored private let store: any ChatHistoryStore
    @ObservationIgnored private let now: @Sendable () -> Int64
    @ObservationIgnored private let ids: any IDGenerator
    @ObservationIgnored private let warmUp: (any ChatWarmUp)?
    @ObservationIgnored private let systemPrompt: String?
    @ObservationIgnored private let openingId: String?
    @ObservationIgnored var streamTask: Task<(String, ChatMessageRecord.State), Never>?
    @ObservationIgnored var stopRequested = false
    @ObservationIgnored var pendingProgress: (text: String, toolCalls: [ChatToolCall])?
    @ObservationIgnored var progressWriter: Task<Void, Never>?
    /// The running reply's flow (``streamReply()``), cancelled by ``stop()`` and by a new reply.
    @ObservationIgnored var replyFlow: Task<Void, Never>?

    /// A conversation: a new one when `conversationId` is `nil`, else the saved one (loaded by
    /// ``enter()``). `now` gives milliseconds since 1970; `ids` names conversations and
    /// messages; `systemPrompt`, when given, goes before the messages of every request and is
    /// saved with a new conversation (a saved one's prompt is sent when none is given).
    /// `streamingFor`, when given, makes the stream for the conversation's current model (so a
    /// model chosen with ``select(model:)`` is the one each request names); else every request
    /// goes through `streaming`.
    public init(
        streaming: any ChatStreaming, store: any ChatHistoryStore, model: String,
        now: @escaping @Sendable () -> Int64, ids: any IDGenerator, warmUp: (any ChatWarmUp)?,
        conversationId: String? = nil, systemPrompt: String? = nil,
        streamingFor: (@MainActor (String) -> any ChatStreaming)? = nil
    ) {
        self.streaming = streaming
        self.streamingFor = streamingFor
        self.store = store
        self.model = model
        self.now = now
        self.ids = ids
        self.warmUp = warmUp
        self.openingId = conversationId
        self.systemPrompt = systemPrompt
    }

    /// The conversation's id, once saved.
    public var conversationId: String? { conversation?.id ?? openingId }

    /// Whether ``retry()`` would ask again: not typing, and the last exchange has no good reply.
    public var canRetry: Bool {
        guard !isTyping, !isLoading, conversationId != nil, let last = messages.last else { return false }
        if last.role == .user { return true }
        if last.role == .assistant, case .failed = last.state { return true }
        return false
    }

    /// Entering the chat: asks for a warm-up, then loads a saved conversation. A reply a crashed
    /// process left `.streaming` is shown, and saved, as failed with ``interruptedReason``, so
    /// Retry is offered.
    public func enter() async {
        warmUp?.requestWarmUp(.enteredChat)
        guard let id = openingId, conversation == nil, !isTyping, !isLoading else { return }
        isLoading = true
        defer { isLoading = false }
        var loaded: [ChatMessageRecord]
        do {
            guard let saved = try await store.conversation(id: id) else {
                lastError = Self.missingReason
                return
            }
            record = saved
            loaded = try await store.messages(inConversation: id)
            // The model it was saved with (before models were kept with conversations: the
            // one its last question asked).
            if let saved = saved.model ?? loaded.last(where: { $0.role == .user })?.model { model = saved }
        } catch {
            lastError = "The chat could not be loaded (\(error)). Open it again."
            return
        }
        let time = now()
        let interrupted = loaded.indices.filter { loaded[$0].role == .assistant && loaded[$0].state == .streaming }
        for index in interrupted {
            loaded[index].state = .failed(reason: Self.interruptedReason)
            loaded[index].finishedAt = time
        }
        messages = loaded.map(ChatTranscriptMessage.init)
        if !interrupted.isEmpty { lastError = Self.interruptedReason }
        for index in interrupted {
            let message = loaded[index]
            do {
                try await store.updateMessage(
                    id: message.id, text: message.text, state: message.state, finishedAt: time, at: time)
            } catch {
                lastError = "The interrupted reply could not be marked as such (\(error))."
            }
        }
    }

    /// Saves `text` as the person's message, with the files in `attachments` kept inline with it
    /// (seed 003), then streams the reply. Returns `false`, and sends nothing, when a reply is
    /// already on its way, the chat is still loading, the text is blank and nothing is attached,
    /// or the message could not be saved (the front end keeps the draft then).
    @discardableResult
    public func send(_ text: String, attachments: [ChatAttachment] = []) async -> Bool {
        guard !isTyping, !isLoading, !(text.allSatisfy(\.isWhitespace) && attachments.isEmpty) else { return false }
        isTyping = true
        stopRequested = false
        lastError = nil
        let time = now()
        do {
            let title = text.allSatisfy(\.isWhitespace) ? attachments.map(\.name).joined(separator: ", ") : text
            let conversationId = try await savedConversation(titledBy: title, at: time)
            let message = ChatMessageRecord(
                id: ids.makeID(), conversationId: conversationId, role: .user, text: text, model: model,
                createdAt: time, attachments: attachments)
            try await store.appendMessage(message)
            messages.append(ChatTranscriptMessage(message))
            touch(at: time)
        } catch {
            isTyping = false
            lastError = "Your message could not be saved, so it was not sent (\(error)). Send it again."
            return false
        }
        await streamReply()
        return true
    }

    /// Asks again for the last question after a failed reply (the question is not saved twice;
    /// the failed reply stays in the history as it was).
    public func retry() async {
        guard canRetry else { return }
        isTyping = true
        stopRequested = false
        lastError = nil
        await streamReply()
    }

    /// Makes `name` the model this conversation asks for from its next request on, saved with
    /// a saved conversation (a new one is saved with it when its first message is). Returns
    /// `false`, the model unchanged and the reason in ``lastError``, when it could not be saved.
    /// Whether the server lists `name` is ``ChatModelPicker``'s rule.
    @discardableResult
    public func select(model name: String) async -> Bool {
        guard name != model else { return true }
        guard !isLoading else {
            lastError = "The chat is still loading; choose the model again when it is open."
            return false
        }
        if let id = record?.id {
            do {
                try await store.setConversationModel(id: id, model: name)
            } catch {
                lastError = "The model choice could not be saved (\(error)); still asking \(model)."
                return false
            }
            record?.model = name
            if let conversation { onConversationChange?(conversation) }
        }
        model = name
        return true
    }

    /// Stops the reply being streamed; what arrived is kept and saved as `.stopped`.
    public func stop() {
        guard isTyping else { return }
        stopRequested = true
        streamTask?.cancel()
        replyFlow?.cancel()
    }

    /// The conversation's id, creating the conversation (titled by `text`) when it is new.
    private func savedConversation(titledBy text: String, at time: Int64) async throws -> String {
        if let record { return record.id }
        if let openingId { return openingId }
        let created = ChatConversationRecord(
            id: ids.makeID(), title: ChatTitle.make(from: text), createdAt: time, updatedAt: time,
            systemPrompt: systemPrompt, model: model)
        try await store.createConversation(created)
        record = created
        if let conversation { onConversationChange?(conversation) }
        return created.id
    }

    /// Records that the conversation changed at `time`.
    func touch(at time: Int64) {
        guard var changed = record, changed.updatedAt < time else { return }
        changed.updatedAt = time
        record = changed
        if let conversation { onConversationChange?(conversation) }
    }

    /// What a request carries: the system prompt (the one given, else the one saved with the
    /// conversation), then the person's messages and the replies that arrived (complete or
    /// stopped); failed and empty replies are left out.
    func requestMessages() -> [ChatMessage] {
        var request: [ChatMessage] = []
        if let system = systemPrompt ?? record?.systemPrompt {
            request.append(ChatMessage(role: "system", content: system))
        }
        for message in messages {
            // A reply's tool calls are not sent back. The OpenAI format requires an assistant
            // message with `tool_calls` to be followed by a `tool` message answering each call
            // id, and servers reject the request without them (OpenAI: 400 "An assistant message
            // with 'tool_calls' must be followed by tool messages"); Sybil never runs a tool, so
            // it has no results to send. The reply's text goes as it is, and a reply that only
            // called tools (no text) is left out below.
            switch (message.role, message.state) {
            case (.assistant, .failed), (.assistant, .streaming): continue
            case (.assistant, _) where message.text.isEmpty: continue
            default:
                request.append(
                    ChatMessage(role: message.role.rawValue, content: message.text, attachments: message.attachments))
            }
        }
        return request
    }

    /// Replaces the in-memory copy of message `id`.
    func replaceMessage(id: String, _ change: (inout ChatTranscriptMessage) -> Void) {
        guard let index = messages.lastIndex(where: { $0.id == id }) else { return }
        change(&messages[index])
    }

    /// Sets the error shown to the person.
    func report(_ sentence: String?) {
        lastError = sentence
    }

    /// Ends typing (every ending of ``streamReply()`` comes here).
    func endTyping() {
        isTyping = false
    }

    /// Appends a message to the in-memory transcript.
    func appendToTranscript(_ message: ChatMessageRecord) {
        messages.append(ChatTranscriptMessage(message))
    }

    /// The history store (without making a stream, as ``replyContext`` does).
    var replyStore: any ChatHistoryStore { store }

    /// The dependencies the reply flow uses: the stream is made for the current model.
    var replyContext: (streaming: any ChatStreaming, store: any ChatHistoryStore, ids: any IDGenerator) {
        (streamingFor?(model) ?? streaming, store, ids)
    }

    /// The injected time, in milliseconds since 1970.
    func currentTime() -> Int64 { now() }
}
