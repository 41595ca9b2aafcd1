import SybilClient
import SybilCore
import SybilStore
import SybilWire

/// A chat history whose searches block until the test releases them, one by one, so a test
/// decides the order in which searches finish. Only search and the recent list are expected;
/// any other call fails loudly.
final class BlockingChatHistory: ChatHistoryStore {
    struct Failure: Error, CustomStringConvertible {
        var description: String { "disk I/O error" }
    }

    private struct State {
        var calls: [String] = []
        var waiting: [String: CheckedContinuation<ChatSearchResults, any Error>] = [:]
        var recentCalls = 0
    }

    private let state = Locked(State())
    let recentConversations: [ChatConversationRecord]

    init(recent: [ChatConversationRecord] = []) {
        recentConversations = recent
    }

    /// The queries searched so far, in order.
    var calls: [String] { state.withLock { $0.calls } }
    /// How many times the recent list was read.
    var recentCalls: Int { state.withLock { $0.recentCalls } }
    /// Whether a search for `query` is waiting to be released.
    func isWaiting(_ query: String) -> Bool { state.withLock { $0.waiting[query] != nil } }

    /// Lets the search for `query` return `texts` as message hits (`more` sets `hasMore`).
    func release(_ query: String, texts: [String], more: Bool = false) {
        let hits = texts.enumerated().map { index, text in
            ChatSearchResults.Hit(
                source: .message(conversationId: "c\(index)", messageId: "m\(index)"), title: "T\(index)", text: text,
                terms: [query], updatedAt: Int64(index))
        }
        finish(query, .success(ChatSearchResults(hits: hits, hasMore: more)))
    }

    /// Lets the search for `query` fail.
    func fail(_ query: String) {
        finish(query, .failure(Failure()))
    }

    private func finish(_ query: String, _ result: Result<ChatSearchResults, any Error>) {
        let continuation = state.withLock { $0.waiting.removeValue(forKey: query) }
        precondition(continuation != nil, "no search for '\(query)' is waiting")
        continuation?.resume(with: result)
    }

    func search(_ query: String, limit: Int) async throws -> ChatSearchResults {
        precondition(limit == 100, "the model asks for 100 hits")
        return try await withCheckedThrowingContinuation { continuation in
            state.withLock {
                $0.calls.append(query)
                $0.waiting[query] = continuation
            }
        }
    }

    func recentConversations(limit: Int) async throws -> [ChatConversationRecord] {
        state.withLock { $0.recentCalls += 1 }
        return Array(recentConversations.prefix(limit))
    }

    func createConversation(_ conversation: ChatConversationRecord) async throws { unexpected() }
    func createConversation(_ conversation: ChatConversationRecord, messages: [ChatMessageRecord]) async throws {
        unexpected()
    }
    func renameConversation(id: String, title: String, at time: Int64) async throws { unexpected() }
    func setConversationModel(id: String, model: String) async throws { unexpected() }
    func deleteConversation(id: String) async throws { unexpected() }
    func conversation(id: String) async throws -> ChatConversationRecord? { unexpected() }
    func messages(inConversation id: String) async throws -> [ChatMessageRecord] { unexpected() }
    func appendMessage(_ message: ChatMessageRecord) async throws { unexpected() }
    func updateMessage(
        id: String, text: String, state: ChatMessageRecord.State, finishedAt: Int64?, toolCalls: [ChatToolCall]?,
        at time: Int64
    ) async throws { unexpected() }
    func saveWebSearch(_ search: SavedWebSearch) async throws { unexpected() }

    func webSearch(id: String) async throws -> SavedWebSearch? { unexpected() }

    func recentWebSearches(limit: Int) async throws -> [SavedWebSearch] { unexpected() }

    private func unexpected(_ function: String = #function) -> Never {
        fatalError("BlockingChatHistory: unexpected call \(function)")
    }
}
