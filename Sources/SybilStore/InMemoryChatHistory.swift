import SybilWire

/// A ``ChatHistoryStore`` in memory, for tests and `sybil ask --no-save`: the same rules as the
/// SQLite store (an id is added once, messages keep their order, a change bumps the
/// conversation's `updatedAt`), nothing on disk. Search is a case-insensitive word-prefix scan.
public actor InMemoryChatHistory: ChatHistoryStore {
    private var conversations: [String: ChatConversationRecord] = [:]
    private var messagesByConversation: [String: [ChatMessageRecord]] = [:]
    private var messageConversation: [String: String] = [:]
    private var webSearches: [SavedWebSearch] = []

    /// An empty history.
    public init() {}

    public func createConversation(_ conversation: ChatConversationRecord) throws {
        guard conversations[conversation.id] == nil else {
            throw Self.error("create conversation", "conversation id \(conversation.id) exists")
        }
        conversations[conversation.id] = conversation
        messagesByConversation[conversation.id] = []
    }

    public func createConversation(_ conversation: ChatConversationRecord, messages: [ChatMessageRecord]) throws {
        guard conversations[conversation.id] == nil else {
            throw Self.error("create conversation", "conversation id \(conversation.id) exists")
        }
        var ids = Set<String>()
        for message in messages {
            guard message.conversationId == conversation.id else {
                throw Self.error("append message", "no conversation \(message.conversationId)")
            }
            guard messageConversation[message.id] == nil, ids.insert(message.id).inserted else {
                throw Self.error("append message", "message id \(message.id) exists")
            }
        }
        try createConversation(conversation)
        for message in messages { try appendMessage(message) }
    }

    public func renameConversation(id: String, title: String, at time: Int64) throws {
        guard conversations[id] != nil else { throw Self.error("rename conversation", "no conversation \(id)") }
        conversations[id]?.title = title
        conversations[id]?.updatedAt = time
    }

    public func setConversationModel(id: String, model: String) throws {
        guard conversations[id] != nil else { throw Self.error("set conversation model", "no conversation \(id)") }
        conversations[id]?.model = model
    }

    public func deleteConversation(id: String) throws {
        // Like the SQLite store: deleting what is not there (deleted meanwhile) is no error.
        guard conversations.removeValue(forKey: id) != nil else { return }
        for message in messagesByConversation.removeValue(forKey: id) ?? [] {
            messageConversation.removeValue(forKey: message.id)
        }
    }

    public func conversation(id: String) -> ChatConversationRecord? {
        conversations[id]
    }

    public func recentConversations(limit: Int) -> [ChatConversationRecord] {
        let sorted = conversations.values.sorted { ($0.updatedAt, $0.id) > ($1.updatedAt, $1.id) }
        return Array(sorted.prefix(max(0, limit)))
    }

    public func messages(inConversation id: String) -> [ChatMessageRecord] {
        messagesByConversation[id] ?? []
    }

    public func appendMessage(_ message: ChatMessageRecord) throws {
        guard conversations[message.conversationId] != nil else {
            throw Self.error("append message", "no conversation \(message.conversationId)")
        }
        guard messageConversation[message.id] == nil else {
            throw Self.error("append message", "message id \(message.id) exists")
        }
        messageConversation[message.id] = message.conversationId
        var kept = message
        kept.toolCalls = Self.bounded(message.toolCalls)
        messagesByConversation[message.conversationId, default: []].append(kept)
        conversations[message.conversationId]?.updatedAt = message.createdAt
    }

    public func updateMessage(
        id: String, text: String, state: ChatMessageRecord.State, finishedAt: Int64?, toolCalls: [ChatToolCall]?,
        at time: Int64
    ) throws {
        guard let conversationId = messageConversation[id],
            let index = messagesByConversation[conversationId]?.firstIndex(where: { $0.id == id })
        else { throw Self.error("update message", "no message \(id)") }
        messagesByConversation[conversationId]?[index].text = text
        messagesByConversation[conversationId]?[index].state = state
        messagesByConversation[conversationId]?[index].finishedAt = finishedAt
        if let toolCalls {
            messagesByConversation[conversationId]?[index].toolCalls = Self.bounded(toolCalls)
        }
        conversations[conversationId]?.updatedAt = time
    }

    public func saveWebSearch(_ search: SavedWebSearch) throws {
        guard !webSearches.contains(where: { $0.id == search.id }) else {
            throw Self.error("save web search", "web search id \(search.id) exists")
        }
        webSearches.append(search)
    }

    public func webSearch(id: String) -> SavedWebSearch? {
        webSearches.first { $0.id == id }
    }

    public func recentWebSearches(limit: Int) -> [SavedWebSearch] {
        // Saved in order: the newest first, ties broken by the later saved.
        Array(webSearches.reversed().sorted { $0.createdAt > $1.createdAt }.prefix(max(0, limit)))
    }

    public func search(_ query: String, limit: Int) -> ChatSearchResults {
        let terms = Self.words(query)
        guard !terms.isEmpty, limit > 0 else { return .empty }
        func matches(_ text: String) -> Bool {
            let words = Self.words(text)
            return terms.allSatisfy { term in words.contains { $0.hasPrefix(term) } }
        }
        let typed = query.split(whereSeparator: { !$0.isLetter && !$0.isNumber }).map(String.init)
        var hits: [ChatSearchResults.Hit] = []
        for conversation in conversations.values {
            if matches(conversation.title) {
                hits.append(
                    .init(
                        source: .title(conversationId: conversation.id), title: conversation.title,
                        text: conversation.title, terms: typed, updatedAt: conversation.updatedAt))
            }
            for message in messagesByConversation[conversation.id] ?? [] where matches(message.text) {
                hits.append(
                    .init(
                        source: .message(conversationId: conversation.id, messageId: message.id),
                        title: conversation.title, text: message.text, terms: typed,
                        updatedAt: message.finishedAt ?? message.createdAt))
            }
        }
        for search in webSearches {
            let text = search.query + "\n" + search.answer
            if matches(text) {
                hits.append(
                    .init(
                        source: .webSearch(id: search.id), title: search.query, text: text, terms: typed,
                        updatedAt: search.createdAt))
            }
        }
        hits.sort { $0.updatedAt > $1.updatedAt }
        return ChatSearchResults(hits: Array(hits.prefix(limit)), hasMore: hits.count > limit)
    }

    /// `calls` within the SQLite store's bounds, so both stores read back the same.
    private static func bounded(_ calls: [ChatToolCall]) -> [ChatToolCall] {
        calls.prefix(ChatToolCall.maximumCalls).map(\.bounded)
    }

    /// The lowercased words (runs of letters and digits) of `text`.
    private static func words(_ text: String) -> [String] {
        text.lowercased().split(whereSeparator: { !$0.isLetter && !$0.isNumber }).map(String.init)
    }

    private static func error(_ operation: String, _ reason: String) -> StorageError {
        StorageError(operation: operation, path: "in-memory chat history", reason: reason)
    }
}
