import SybilCore
import SybilWire
import Testing

/// Older pages and thread pages go through the same page decoder as the envelope's timeline.
@Suite("Workspace chat pages", .timeLimit(.minutes(2)))
struct WorkspaceChatPageTests {
    private let olderPage: JSONValue = [
        "timeline": [EnvelopeFixture.validBlock], "hasOlderEntries": true, "oldestCursor": "c-1",
    ]
    private let threadPage: JSONValue = [
        "threadId": "thread-7", "timeline": [EnvelopeFixture.validBlock, EnvelopeFixture.validLiveBlock],
        "hasOlderEntries": false, "oldestCursor": nil,
    ]

    private func rejection(_ value: JSONValue, kind: WorkspaceChatPage.Kind) -> JSONError? {
        do {
            _ = try WorkspaceChatPage.decode(value, at: .root, kind: kind)
            return nil
        } catch {
            return error
        }
    }

    @Test func decodesBothKinds() throws {
        let older = try WorkspaceChatPage.decode(olderPage, at: .root, kind: .olderPage)
        #expect(older.threadId == nil && older.hasOlderEntries && older.oldestCursor == "c-1")
        #expect(older.timeline.map(\.id) == ["r"])
        let thread = try WorkspaceChatPage.decode(threadPage, at: .root, kind: .threadPage)
        #expect(thread.threadId == "thread-7")
        #expect(thread.timeline.map(\.identity) == [.row("r"), .runRow(runId: "run-1", rowId: "a")])
        #expect(thread.jsonValue == threadPage)
        #expect(older.jsonValue == olderPage)
    }

    @Test func keysAreExactPerKind() {
        #expect(rejection(olderPage, kind: .threadPage)?.path.description == "threadId")
        #expect(rejection(threadPage, kind: .olderPage)?.path.description == "threadId")
        #expect(
            rejection(JSONEdit.setting(olderPage, [.key("oldestCursor")], to: nil), kind: .olderPage)?.message
                == "required member is missing")
        #expect(
            rejection(JSONEdit.setting(threadPage, [.key("threadId")], to: ""), kind: .threadPage)?.path.description
                == "threadId")
    }

    @Test func rowRulesAreTheEnvelopeRules() {
        let badRow = JSONEdit.setting(threadPage, [.key("timeline"), .index(1), .key("runId")], to: nil)
        let error = rejection(badRow, kind: .threadPage)
        #expect(error?.path.description == "timeline[1].runId")
        let fractional = JSONEdit.setting(
            olderPage, [.key("timeline"), .index(0), .key("sourceOrder")], to: [JSONEdit.number("0.5")])
        #expect(rejection(fractional, kind: .olderPage)?.path.description == "timeline[0].sourceOrder[0]")
    }

    @Test func duplicateSpliceKeyFailsThePage() {
        let duplicate = JSONEdit.setting(
            olderPage, [.key("timeline")], to: [EnvelopeFixture.validBlock, EnvelopeFixture.validBlock])
        let error = rejection(duplicate, kind: .olderPage)
        #expect(error?.path.description == "timeline[1]")
        #expect(error?.message.contains("duplicate splice key row:r (also at timeline[0])") == true)
    }

    @Test func olderEntriesNeedACursor() {
        let value = JSONEdit.setting(olderPage, [.key("oldestCursor")], to: .null)
        #expect(rejection(value, kind: .olderPage)?.path.description == "oldestCursor")
    }

    @Test func bytesEntryPointParsesStrictly() throws {
        let error = try #require(throws: JSONError.self) {
            try WorkspaceChatPage.decode(
                json: Array(#"{"timeline":[],"hasOlderEntries":false,"oldestCursor":null,}"#.utf8), kind: .olderPage)
        }
        #expect(error.kind == .syntax)
        let page = try WorkspaceChatPage.decode(
            json: Array(#"{"timeline":[],"hasOlderEntries":false,"oldestCursor":null}"#.utf8), kind: .olderPage)
        #expect(page.timeline.isEmpty)
    }
}
