import SybilClient
import SybilCore
import SybilStore

/// A question that never left the machine (no connection could be made, or no key could be
/// had before sending) is not kept in the history: the attempt is taken back out, and the
/// person is told how to send it again. Nothing is lost: the words are on their command line,
/// and a question read from standard input, which cannot be typed again, is printed back on
/// standard error.
extension AskCommand {
    /// What the conversation held before the question was sent.
    struct Attempt {
        /// Whether the conversation is new (created by this question).
        var isNew: Bool
        /// The ids of the messages it already had.
        var earlier: Set<String>
        /// Its `updatedAt` before the question.
        var updatedAt: Int64?

        @MainActor
        init(_ model: ChatConversationModel) {
            isNew = model.conversation == nil
            earlier = Set(model.messages.map(\.id))
            updatedAt = model.conversation?.updatedAt
        }
    }

    /// Takes the attempt out of `store` (a new conversation deleted; a continued one's new
    /// messages removed and its time put back) and says how to send the question again.
    @MainActor
    static func unsent(
        _ request: Request, attempt: Attempt, model: ChatConversationModel, store: any ChatHistoryStore,
        io: CommandIO
    ) async {
        var kept = false
        if request.save, let id = model.conversationId {
            do {
                if attempt.isNew {
                    try await store.deleteConversation(id: id)
                } else if let saved = store as? SQLiteChatHistory, let updatedAt = attempt.updatedAt {
                    let added = model.messages.map(\.id).filter { !attempt.earlier.contains($0) }
                    try await saved.removeMessages(ids: added, fromConversation: id, updatedAt: updatedAt)
                }
            } catch {
                kept = true
                io.writeError("\(name): the unsent question stays in conversation \(id) (\(error))\n")
            }
        }
        let saved = kept ? "" : ", so it was not saved"
        guard request.piped else {
            io.writeError(
                "\(name): the question never reached the server\(saved); run the same command again to send it\n")
            return
        }
        io.writeError(
            "\(name): the question never reached the server\(saved); it follows, to pipe in again:\n"
                + TerminalText.safe(request.question) + (request.question.hasSuffix("\n") ? "" : "\n"))
    }
}
