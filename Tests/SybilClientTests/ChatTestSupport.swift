import Foundation
import SybilClient
import SybilCore
import SybilHTTP
import SybilNet
import SybilStore
import SybilWire
import Testing

/// A time in milliseconds that only a test moves.
final class TestTime: Sendable {
    private let value: Locked<Int64>

    init(_ start: Int64 = 1_000) { value = Locked(start) }

    var now: @Sendable () -> Int64 { { [self] in value.withLock { $0 } } }

    func set(_ time: Int64) { value.withLock { $0 = time } }
}

/// A chat stream the test drives: each request is recorded with what the history held at that
/// moment (read synchronously, so a save that came later cannot hide), and its deltas and ending
/// are fed by the test.
final class ControlledStreaming: ChatStreaming {
    struct Request: Sendable {
        var messages: [ChatMessage]
        /// The messages the history had taken when the request left.
        var savedBefore: [ChatMessageRecord]
    }

    private struct State {
        var requests: [Request] = []
        var continuations: [AsyncThrowingStream<String, any Error>.Continuation] = []
        var cancelled = 0
    }

    private let state = Locked(State())
    private let history: RecordingChatHistory?

    init(history: RecordingChatHistory? = nil) { self.history = history }

    var requests: [Request] { state.withLock { $0.requests } }
    var cancelled: Int { state.withLock { $0.cancelled } }

    func reply(to messages: [ChatMessage]) -> AsyncThrowingStream<String, any Error> {
        let (stream, continuation) = AsyncThrowingStream<String, any Error>.makeStream()
        continuation.onTermination = { [weak self] termination in
            if case .cancelled = termination { self?.state.withLock { $0.cancelled += 1 } }
        }
        let saved = history?.appended ?? []
        state.withLock {
            $0.requests.append(Request(messages: messages, savedBefore: saved))
            $0.continuations.append(continuation)
        }
        return stream
    }

    /// Sends `delta` on the newest request.
    func yield(_ delta: String) {
        _ = state.withLock { $0.continuations.last }?.yield(delta)
    }

    /// Ends the newest request, with `error` or normally.
    func finish(throwing error: (any Error)? = nil) {
        state.withLock { $0.continuations.last }?.finish(throwing: error)
    }
}

/// Streams the scripted deltas, then ends as told, for every request.
struct ScriptedStreaming: ChatStreaming {
    var deltas: [String]
    var ending: (any Error)?

    func reply(to messages: [ChatMessage]) -> AsyncThrowingStream<String, any Error> {
        AsyncThrowingStream { continuation in
            for delta in deltas { continuation.yield(delta) }
            continuation.finish(throwing: ending)
        }
    }
}

/// An in-memory history that records every write as it is called, can hold message updates
/// until the test releases them (to see how many are in flight), and can fail chosen writes.
final class RecordingChatHistory: ChatHistoryStore {
    struct Update: Sendable, Equatable {
        var id: String
        var text: String
        var state: ChatMessageRecord.State
        var finishedAt: Int64?
        /// The tool calls written with it (`nil`: left as they were).
        var toolCalls: [ChatToolCall]? = nil
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String { "disk full" }
    }

    private struct State {
        var appended: [ChatMessageRecord] = []
        var updates: [Update] = []
        var inFlight = 0
        var maxInFlight = 0
        var holdUpdates = false
        var held: [CheckedContinuation<Void, Never>] = []
        var failAppendsOf: Set<ChatMessageRecord.Role> = []
        var failUpdates = false
        var failCreate = false
        var holdReads = false
        var heldReads: [CheckedContinuation<Void, Never>] = []
        var holdCreates = false
        var heldCreates: [CheckedContinuation<Void, Never>] = []
        var creates = 0
    }

    let base = InMemoryChatHistory()
    private let state = Locked(State())

    var appended: [ChatMessageRecord] { state.withLock { $0.appended } }
    var updates: [Update] { state.withLock { $0.updates } }
    var maxUpdatesInFlight: Int { state.withLock { $0.maxInFlight } }
    var heldUpdates: Int { state.withLock { $0.held.count } }

    func failAppends(of roles: Set<ChatMessageRecord.Role>) { state.withLock { $0.failAppendsOf = roles } }
    func failUpdates(_ fail: Bool) { state.withLock { $0.failUpdates = fail } }
    func failCreate(_ fail: Bool) { state.withLock { $0.failCreate = fail } }
    func holdUpdates(_ hold: Bool) { state.withLock { $0.holdUpdates = hold } }
    func holdReads(_ hold: Bool) { state.withLock { $0.holdReads = hold } }
    func holdCreates(_ hold: Bool) { state.withLock { $0.holdCreates = hold } }
    var heldCreateCount: Int { state.withLock { $0.heldCreates.count } }
    /// How many conversations with messages were asked to be created.
    var createsWithMessages: Int { state.withLock { $0.creates } }

    /// Lets every held creation go on.
    func releaseCreates() {
        for continuation in state.withLock({ state in
            defer { state.heldCreates = [] }
            return state.heldCreates
        }) {
            continuation.resume()
        }
    }
    var heldReadCount: Int { state.withLock { $0.heldReads.count } }

    /// Lets every held read of a conversation's messages go on.
    func releaseReads() {
        for continuation in state.withLock({ state in
            defer { state.heldReads = [] }
            return state.heldReads
        }) {
            continuation.resume()
        }
    }

    /// Lets every held update go on.
    func releaseUpdates() {
        for continuation in state.withLock({ state in
            defer { state.held = [] }
            return state.held
        }) {
            continuation.resume()
        }
    }

    func createConversation(_ conversation: ChatConversationRecord) async throws {
        if state.withLock({ $0.failCreate }) { throw Failure() }
        try await base.createConversation(conversation)
    }

    func createConversation(_ conversation: ChatConversationRecord, messages: [ChatMessageRecord]) async throws {
        let hold = state.withLock { state in
            state.creates += 1
            return state.holdCreates
        }
        if hold {
            await withCheckedContinuation { continuation in state.withLock { $0.heldCreates.append(continuation) } }
        }
        let fail = state.withLock { state in
            if state.failCreate || messages.contains(where: { state.failAppendsOf.contains($0.role) }) { return true }
            state.appended += messages
            return false
        }
        if fail { throw Failure() }
        try await base.createConversation(conversation, messages: messages)
    }

    func renameConversation(id: String, title: String, at time: Int64) async throws {
        try await base.renameConversation(id: id, title: title, at: time)
    }

    func setConversationModel(id: String, model: String) async throws {
        try await base.setConversationModel(id: id, model: model)
    }

    func deleteConversation(id: String) async throws { try await base.deleteConversation(id: id) }

    func conversation(id: String) async throws -> ChatConversationRecord? { await base.conversation(id: id) }

    func recentConversations(limit: Int) async throws -> [ChatConversationRecord] {
        await base.recentConversations(limit: limit)
    }

    func messages(inConversation id: String) async throws -> [ChatMessageRecord] {
        if state.withLock({ $0.holdReads }) {
            await withCheckedContinuation { continuation in state.withLock { $0.heldReads.append(continuation) } }
        }
        return await base.messages(inConversation: id)
    }

    func appendMessage(_ message: ChatMessageRecord) async throws {
        let fail = state.withLock { state in
            if state.failAppendsOf.contains(message.role) { return true }
            state.appended.append(message)
            return false
        }
        if fail { throw Failure() }
        try await base.appendMessage(message)
    }

    func updateMessage(
        id: String, text: String, state newState: ChatMessageRecord.State, finishedAt: Int64?,
        toolCalls: [ChatToolCall]?, at time: Int64
    ) async throws {
        let hold = state.withLock { state in
            state.inFlight += 1
            state.maxInFlight = max(state.maxInFlight, state.inFlight)
            state.updates.append(
                Update(id: id, text: text, state: newState, finishedAt: finishedAt, toolCalls: toolCalls))
            return state.holdUpdates
        }
        if hold {
            await withCheckedContinuation { continuation in state.withLock { $0.held.append(continuation) } }
        }
        defer { state.withLock { $0.inFlight -= 1 } }
        if state.withLock({ $0.failUpdates }) { throw Failure() }
        try await base.updateMessage(
            id: id, text: text, state: newState, finishedAt: finishedAt, toolCalls: toolCalls, at: time)
    }

    func saveWebSearch(_ search: SavedWebSearch) async throws { try await base.saveWebSearch(search) }

    func webSearch(id: String) async throws -> SavedWebSearch? { await base.webSearch(id: id) }

    func recentWebSearches(limit: Int) async throws -> [SavedWebSearch] { await base.recentWebSearches(limit: limit) }

    func search(_ query: String, limit: Int) async throws -> ChatSearchResults {
        await base.search(query, limit: limit)
    }
}

/// Records the warm-up requests of the chat models.
@MainActor
final class RecordingWarmUp: ChatWarmUp {
    private(set) var triggers: [ChatWarmUpTrigger] = []

    func requestWarmUp(_ trigger: ChatWarmUpTrigger) { triggers.append(trigger) }
}

/// An HTTP client that answers health checks with 200 once the test opens it, and fails any
/// other request; it counts what it was asked.
final class HealthCheckHTTPClient: HTTPClient {
    private let state = Locked<(requests: [HTTPRequest], waiting: [CheckedContinuation<Void, Never>], open: Bool)>(
        ([], [], false))

    var requests: [HTTPRequest] { state.withLock { $0.requests } }

    /// Answers every waiting and later health check.
    func open() {
        for continuation in state.withLock({ state in
            state.open = true
            defer { state.waiting = [] }
            return state.waiting
        }) {
            continuation.resume()
        }
    }

    func send(_ request: HTTPRequest) async throws -> HTTPStreamingResponse {
        guard request.url.path.hasSuffix("/healthz") else {
            Issue.record("unexpected request \(request.url)")
            throw ChatStreamError.transport("unexpected")
        }
        await withCheckedContinuation { continuation in
            let open = state.withLock { state in
                state.requests.append(request)
                if !state.open { state.waiting.append(continuation) }
                return state.open
            }
            if open { continuation.resume() }
        }
        let (body, feed) = AsyncThrowingStream<[UInt8], any Error>.makeStream()
        feed.finish()
        return HTTPStreamingResponse(head: HTTPResponseHead(status: 200, headers: HTTPHeaders()), body: body)
    }
}
