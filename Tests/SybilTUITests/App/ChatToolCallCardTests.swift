import SybilClient
import SybilWire
import Testing

@testable import SybilTUI

/// An ordinary chat's timeline: a card per tool call the reply made (safe, one bounded line,
/// said not to be run) and the files attached to the person's message under it.
@Suite("Chat timeline: tool-call cards and attachments")
struct ChatToolCallCardTests {
    @Test func eachToolCallIsACardThatSaysItWasNotRun() {
        let calls = [
            ChatToolCall(index: 0, id: "call_1", name: "get_weather", arguments: #"{"city":"Paris"}"#),
            ChatToolCall(
                index: 1, name: "wipe\u{1B}[2J", arguments: String(repeating: "x", count: 500), truncated: true),
        ]
        let items = ChatTimelineAdapter.toolCallItems(calls)
        #expect(items.map(\.role) == [.activity, .activity])
        #expect(items.map(\.author) == ["Tool call", "Tool call"])
        #expect(items[0].body == #"get_weather({"city":"Paris"})"#)
        #expect(items[0].status == "Not run: Sybil does not run tools")
        #expect(!items[1].body.contains("\u{1B}"), "a name is made safe")
        #expect(items[1].body.count == 200, "one bounded line")
        #expect(items[1].status == "Not run: Sybil does not run tools (arguments cut)")
        #expect(Set(items.map(\.id)).count == 2)
    }

    @Test func attachedFilesAreListedUnderThePersonsMessage() {
        let message = ChatTranscriptMessage(
            id: "m1", role: .user, text: "what is this", createdAt: 0,
            attachments: [
                ChatAttachment(name: "notes.txt", mimeType: "text/plain", kind: .text, bytes: Array("hi".utf8)),
                ChatAttachment(name: "cat.png", mimeType: "image/png", kind: .image, bytes: [1]),
            ])
        let items = ChatTimelineAdapter.items([message])
        let user = items.first { $0.role == .user }
        #expect(user?.body == "what is this")
        #expect(user?.status == "Attached: notes.txt (text, 2 bytes), cat.png (image, 1 byte)")
    }
}
