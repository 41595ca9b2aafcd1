import Foundation
import SybilStore

/// A chat history file in a fresh temporary directory, removed by `remove()`.
struct ChatHistoryFixture {
    let directory: String
    var path: String { directory + "/client/chats.sqlite" }

    init() {
        directory =
            FileManager.default.temporaryDirectory.appendingPathComponent(
                "sybil-history-\(UUID().uuidString)"
            ).path
    }

    /// Opens (another) store on the fixture's file.
    func open() throws -> SQLiteChatHistory {
        try SQLiteChatHistory(path: path)
    }

    func remove() {
        try? FileManager.default.removeItem(atPath: directory)
    }

    static func conversation(_ id: String, title: String = "Trip", at time: Int64 = 1_000) -> ChatConversationRecord {
        ChatConversationRecord(id: id, title: title, createdAt: time, updatedAt: time)
    }

    static func message(
        _ id: String, in conversation: String = "c1", role: ChatMessageRecord.Role = .user, text: String,
        state: ChatMessageRecord.State = .complete, at time: Int64 = 2_000
    ) -> ChatMessageRecord {
        ChatMessageRecord(
            id: id, conversationId: conversation, role: role, text: text, model: role == .assistant ? "gpt-x" : nil,
            state: state, createdAt: time, finishedAt: role == .assistant && state != .streaming ? time + 5 : nil)
    }
}
