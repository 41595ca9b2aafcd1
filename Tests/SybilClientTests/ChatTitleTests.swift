import SybilClient
import Testing

/// A new conversation's title: one line, at most 60 characters.
@Suite("Chat title", .timeLimit(.minutes(2)))
struct ChatTitleTests {
    @Test(
        "titles at the length boundary",
        arguments: [
            (String(repeating: "a", count: 59), String(repeating: "a", count: 59)),
            (String(repeating: "a", count: 60), String(repeating: "a", count: 60)),
            (String(repeating: "a", count: 61), String(repeating: "a", count: 59) + "…"),
        ])
    func lengthBoundary(text: String, title: String) {
        #expect(ChatTitle.make(from: text) == title)
        #expect(ChatTitle.make(from: text).count <= ChatTitle.maximumLength)
    }

    @Test func lineBreaksAndRunsOfSpaceBecomeOneSpace() {
        #expect(ChatTitle.make(from: "  Was ist\n\n ein\tKaltstart?  ") == "Was ist ein Kaltstart?")
    }

    @Test func aLongTitleIsCutAtAWordBoundary() {
        let text = String(repeating: "word ", count: 20)
        let title = ChatTitle.make(from: text)
        #expect(title == String(repeating: "word ", count: 11) + "word…")
        #expect(title.count <= 60)
    }

    @Test func aBlankMessageGivesTheUntitledTitle() {
        #expect(ChatTitle.make(from: " \n\t") == ChatTitle.untitled)
    }

    @Test func charactersNotBytesAreCounted() {
        let text = String(repeating: "冷", count: 60)
        #expect(ChatTitle.make(from: text) == text)
        #expect(ChatTitle.make(from: text + "启") == String(repeating: "冷", count: 59) + "…")
    }
}
