import Foundation
import SybilClient
import SybilCore
import SybilHTTP
import SybilNet
import SybilStore

/// The chats part of the driver: one conversation in the SQLite chat history on disk, asked
/// through the real conversation model and streaming service. The history is the client's own
/// truth (the server keeps none): each question is saved before its request leaves, and a
/// reply a kill cut off is marked interrupted at the next launch, then asked again (Retry).
@MainActor
final class ChatSurfaceDriver {
    /// The model the reference server's scripted agent answers as.
    static let model = "sybil-scripted"

    let history: SQLiteChatHistory
    private let connection: ChaosConnection
    private let plan: DeliveryPlan
    private var model: ChatConversationModel?

    /// Opens the history at `path`.
    init(connection: ChaosConnection, path: String, plan: DeliveryPlan) throws {
        self.connection = connection
        self.plan = plan
        history = try SQLiteChatHistory(path: path)
    }

    /// The plan's indices of the saved questions, in order.
    var queuedIndices: [Int] {
        get async throws {
            var indices: [Int] = []
            for conversation in try await history.recentConversations(limit: 1_000).reversed() {
                for message in try await history.messages(inConversation: conversation.id) where message.role == .user {
                    if let index = plan.index(of: message.text) { indices.append(index) }
                }
            }
            return indices
        }
    }

    /// Opens the driver's conversation (the oldest saved one, or a new one with the first
    /// question); a reply an earlier life left streaming is marked interrupted, then retried.
    func start() async throws {
        let existing = try await history.recentConversations(limit: 1_000).last
        let model = ChatConversationModel(
            streaming: ChatStreamingService(
                baseURL: connection.baseURL, http: DefaultHTTPClient.make(), clock: ContinuousClock(),
                tokens: connection.tokens, gate: nil, model: Self.model, stallTimeout: .seconds(10)),
            store: history, model: Self.model,
            now: WallClock.milliseconds,
            ids: RandomUUIDGenerator(source: SystemRandomSource()), warmUp: nil, conversationId: existing?.id)
        self.model = model
        await model.enter()
        if let problem = model.lastError, problem != ChatConversationModel.interruptedReason {
            throw ChaosError("the chat could not be opened: \(problem)")
        }
        await pump()
    }

    /// Asks message `index`: saved first, then the reply streams into the history.
    func queue(_ index: Int) async throws {
        guard let model else { throw ChaosError("the chat is not open") }
        guard await model.send(plan.text(of: index)) else {
            throw ChaosError("the question \(plan.text(of: index)) was not saved: \(model.lastError ?? "busy")")
        }
    }

    /// Asks again when the last exchange has no good reply (a person presses Retry).
    func pump() async {
        guard let model, model.canRetry else { return }
        await model.retry()
    }

    /// Whether the last question has a good reply.
    var isSettled: Bool {
        guard let model else { return false }
        return !model.isTyping && !model.canRetry
    }

    /// What is open, for the log.
    var unsettledSummary: String {
        guard let model else { return "chats: not open" }
        if model.isTyping { return "chats: typing" }
        return model.canRetry ? "chats: last reply failed (\(model.lastError ?? "?"))" : "chats: answered"
    }
}
