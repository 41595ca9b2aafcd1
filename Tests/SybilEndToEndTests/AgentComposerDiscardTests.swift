import Foundation
import SybilClient
import SybilCore
import SybilWire
import Testing

/// Discard through the Agent room composer, against the reference server: the way out of a
/// message the server refused for good, which Retry cannot send.
@Suite("Agent composer discard", .timeLimit(.minutes(2)))
@MainActor
struct AgentComposerDiscardTests {
    @Test func aRefusedMessageSaysDiscardAndDiscardLetsTheRestGo() async throws {
        let server = try startServer()
        defer { Task { await server.shutdown() } }
        let composer = try await AgentComposerEndToEndTests.open(server, directory: temporaryDirectory())
        await composer.start()
        let never = AgentAttachment(
            uploadId: "never-uploaded", fileName: "a.txt", mimeType: "text/plain", size: 42,
            sha256: String(repeating: "ab", count: 32))
        let refused = try await composer.outbox.enqueue(text: "refused", attachments: [never])
        try await composer.outbox.enqueue(text: "after it")
        composer.sender.wake()
        await waitUntil("the refusal") { composer.outbox.entry(refused.requestId)?.state == .failed }
        let failure = try #require(composer.outbox.entry(refused.requestId)?.failure)
        #expect(failure.kind == .refused && !failure.canRetry)
        #expect(failure.description.hasSuffix("Sending it again cannot succeed; Discard it and write a new message."))
        #expect(composer.holdReason == "Waiting: “refused” was not accepted — Discard it to send the rest.")

        let discarded = try await composer.discard(refused.requestId)
        #expect(discarded.text == "refused" && discarded.attachments == [never])
        await waitUntil("the next message sent and echoed") {
            composer.outbox.entries.isEmpty
                && AgentComposerEndToEndTests.userMessages(composer, text: "after it").count == 1
        }
        #expect(composer.holdReason == nil)
        #expect(AgentComposerEndToEndTests.userMessages(composer, text: "refused").isEmpty)
        await #expect(throws: AgentOutboxError.self) { try await composer.discard(refused.requestId) }
        await composer.stop()
    }
}
