import Foundation
import SybilWire
import Testing

@testable import SybilStore

/// The files attached inline to an ordinary chat's message are kept with it (migration
/// `chat-history-9-message-attachments`), bytes and all, so a continuation sends them again;
/// a message saved before the migration reads back with none, and a damaged column is an error
/// naming it rather than a silent empty list.
@Suite("chat history: message attachments", .timeLimit(.minutes(2)))
struct ChatHistoryAttachmentTests {
    typealias F = ChatHistoryFixture

    static let attachments = [
        ChatAttachment(
            name: "notes.txt", mimeType: "text/plain; charset=utf-8", kind: .text, bytes: Array("hi\n".utf8)),
        ChatAttachment(name: "cat.png", mimeType: "image/png", kind: .image, bytes: [0x89, 0x50, 0x4E, 0x47, 0, 255]),
    ]

    @Test func attachmentsAreSavedAndReadBackInOrderWithTheirBytes() async throws {
        let fixture = F()
        defer { fixture.remove() }
        var message = F.message("m1", text: "what is this")
        message.attachments = Self.attachments
        do {
            let store = try fixture.open()
            try await store.createConversation(F.conversation("c1"))
            try await store.appendMessage(message)
            try await store.appendMessage(F.message("m2", role: .assistant, text: "a cat"))
        }
        let reopened = try fixture.open()
        let read = try await reopened.messages(inConversation: "c1")
        #expect(read.map(\.attachments) == [Self.attachments, []])
        #expect(read.first == message)
        let memory = InMemoryChatHistory()
        try await memory.createConversation(F.conversation("c1"))
        try await memory.appendMessage(message)
        #expect(try await memory.messages(inConversation: "c1").first?.attachments == Self.attachments)
    }

    @Test func aDamagedAttachmentsColumnIsAnErrorNamingIt() async throws {
        let fixture = F()
        defer { fixture.remove() }
        do {
            let store = try fixture.open()
            try await store.createConversation(F.conversation("c1"))
            try await store.appendMessage(F.message("m1", text: "q"))
        }
        do {
            let database = try SQLiteDatabase.open(path: fixture.path, migrations: SQLiteChatHistory.migrations)
            try database.query(
                #"UPDATE chat_messages SET attachments = '[{"name":"a","type":"image/png","kind":"image","size":3,"data":"AAAAAAAA"}]'"#
            )
        }
        let error = await #expect(throws: StorageError.self) { try await fixture.open().messages(inConversation: "c1") }
        #expect(error?.reason.contains("chat_messages.attachments") == true)
        #expect(error?.reason.contains("holds 6 bytes; size says 3") == true)
    }
}
