import Foundation
import SybilClient
import SybilCore
import SybilStore
import SybilWire
import Testing

/// SPEC §2 "nothing lost": a list of messages kept undelivered, written before it changes and
/// read back by the next process (a dropped list is a crashed one), bounded as in memory.
@MainActor
@Suite("Undelivered messages kept between launches", .timeLimit(.minutes(1)))
struct UndeliveredMessagesPersistenceTests {
    typealias Messages = WorkspaceUndeliveredMessages
    static let chat = WorkspaceChatKey(desktopId: "d1", projectId: "p1", sessionId: "s1")
    static let other = WorkspaceChatKey(desktopId: "d1", projectId: "p1", sessionId: "s2")

    static func message(_ number: Int, in chat: WorkspaceChatKey = chat) -> Messages.Message {
        Messages.Message(
            id: "op-\(number)", chat: chat, text: "Text \(number)", mode: .steer(activeRunId: "run-1"),
            attachmentCount: 2, cause: .rejected, reason: "Der Desktop lehnte ab.")
    }

    @Test func aKeptMessageIsOnDiskBeforeTheListShowsIt() {
        let store = InMemoryKeyValueStore()
        var list: Messages? = Messages(persistence: .workspaces(in: store))
        #expect(list?.keep(Self.message(1)) == true)
        list = nil  // the process dies here

        let restored = Messages(persistence: .workspaces(in: store))
        #expect(restored.messages == [Self.message(1)], "every field comes back")
        #expect(restored.loadProblem == nil)
    }

    @Test func aTakenMessageLeavesTheDiskAndAMoveIsSaved() throws {
        let store = InMemoryKeyValueStore()
        let list = Messages(persistence: .workspaces(in: store))
        list.keep(Self.message(1))
        list.keep(Self.message(2))
        #expect(list.take("op-1", in: Self.chat) == Self.message(1))
        list.move(from: Self.chat, to: Self.other)

        let restored = Messages(persistence: .workspaces(in: store))
        #expect(restored.messages.map(\.id) == ["op-2"])
        #expect(restored.messages(in: Self.other).map(\.id) == ["op-2"])
        #expect(restored.take("op-2", in: Self.other) != nil)
        #expect(try store.data(forKey: "workspace-undelivered") == nil, "an empty list leaves no document")
    }

    @Test func noKeptTextLeavesForACountOfTexts() {
        let store = InMemoryKeyValueStore()
        let count = 300  // past the 256 a chat once kept, when the oldest left without a word
        let list = Messages(persistence: .workspaces(in: store))
        for number in 1...count { #expect(list.keep(Self.message(number))) }
        list.keep(Self.message(1, in: Self.other))
        #expect(list.messages(in: Self.chat).count == count, "every text the person wrote stays")
        #expect(list.saveProblem == nil)

        let restored = Messages(persistence: .workspaces(in: store))
        #expect(restored.messages(in: Self.chat).map(\.id) == (1...count).map { "op-\($0)" })
        #expect(restored.messages(in: Self.other).count == 1, "another chat's messages stay")
        #expect(restored.loadProblem == nil)
    }

    @Test func aDocumentWithManyTextsOfAChatIsReadWhole() throws {
        let store = InMemoryKeyValueStore()
        let persistence = UndeliveredMessagesPersistence<WorkspaceChatKey>.workspaces(in: store)
        let count = 300
        // Written by another process as its list grew.
        let writer = Messages(persistence: persistence)
        for number in 1...count { writer.keep(Self.message(number)) }
        let bytes = try #require(try store.data(forKey: persistence.key))
        var text = String(decoding: bytes, as: UTF8.self)
        let extra = String(decoding: JSONWriter().bytes(from: .string("Text \(count + 1)")), as: UTF8.self)
        text = text.replacingOccurrences(
            of: "]}",
            with: #",{"id":"op-x","chat":{"desktopId":"d1","projectId":"p1","sessionId":"s1"},"text":"#
                + extra + #","mode":"send","attachments":0,"cause":"discarded","reason":"r"}]}"#)
        try store.set(Array(text.utf8), forKey: persistence.key)

        let restored = Messages(persistence: persistence)
        #expect(restored.loadProblem == nil)
        #expect(restored.messages.count == count + 1)
        #expect(restored.messages.first?.id == "op-1")
        #expect(restored.messages.last?.text == "Text \(count + 1)")
    }

    /// The largest document the next launch reads back (``JSONReader/Limits/standard``).
    static let readLimit = JSONReader.Limits.standard.maxBytes

    /// A message whose text makes the list `[Self.message(1), it]` exactly `size` bytes.
    static func filler(makingDocument size: Int) throws -> Messages.Message {
        let scratch = InMemoryKeyValueStore()
        let persistence = UndeliveredMessagesPersistence<WorkspaceChatKey>.workspaces(in: scratch)
        let empty = Messages.Message(id: "op-big", chat: chat, text: "", cause: .notSent, reason: "r")
        let written = Messages(persistence: persistence)
        written.keep(message(1))
        written.keep(empty)
        let overhead = try #require(try scratch.data(forKey: persistence.key)).count
        return Messages.Message(
            id: "op-big", chat: chat, text: String(repeating: "a", count: size - overhead), cause: .notSent,
            reason: "r")
    }

    @Test func aListTheNextLaunchCouldNotReadIsNotWrittenAndLosesNoText() throws {
        let store = InMemoryKeyValueStore()
        let persistence = UndeliveredMessagesPersistence<WorkspaceChatKey>.workspaces(in: store)
        // At the reader's limit: written, and read back whole.
        var list = Messages(persistence: persistence)
        list.keep(Self.message(1))
        let atLimit = try Self.filler(makingDocument: Self.readLimit)
        #expect(list.keep(atLimit))
        #expect(try store.data(forKey: persistence.key)?.count == Self.readLimit)
        var restored = Messages(persistence: persistence)
        #expect(restored.loadProblem == nil)
        #expect(restored.messages.map(\.id) == ["op-1", "op-big"])
        #expect(list.take("op-big", in: Self.chat) != nil)

        // One byte past it: the launch after would set the document aside, so it is not written.
        list = Messages(persistence: persistence)
        let pastLimit = try Self.filler(makingDocument: Self.readLimit + 1)
        #expect(list.keep(pastLimit) == false)
        #expect(list.messages.map(\.id) == ["op-1", "op-big"], "the text stays in memory")
        let problem = try #require(list.saveProblem)
        #expect(problem.contains("could not be saved") && problem.contains("\(Self.readLimit)"), "\(problem)")
        #expect(try store.data(forKey: persistence.key + ".unreadable") == nil)
        restored = Messages(persistence: persistence)
        #expect(restored.loadProblem == nil, "the document saved before is read back")
        #expect(restored.messages.map(\.id) == ["op-1"])

        // Taking the large text back leaves a list that can be saved again.
        #expect(list.take("op-big", in: Self.chat)?.text.utf8.count == pastLimit.text.utf8.count)
        #expect(list.saveProblem == nil)
        #expect(list.keep(Self.message(2)))
        #expect(Messages(persistence: persistence).messages.map(\.id) == ["op-1", "op-2"])
    }

    @Test func aListWhoseStoreCannotBeOpenedSaysItIsNotKept() throws {
        // A data folder whose place is taken by a file: the store's folder cannot be made.
        let blocked = FileManager.default.temporaryDirectory.appendingPathComponent(
            "sybil-kept-blocked-\(UUID().uuidString)"
        ).path
        try AtomicFile.write(Array("not a folder".utf8), to: blocked)
        defer { try? AtomicFile.remove(blocked) }
        let list = Messages.opening(
            store: { try FileKeyValueStore(directory: blocked + "/client") }, persistence: { .workspaces(in: $0) })
        #expect(list.persistence == nil)
        let problem = try #require(list.storeProblem, "in memory only, and it says so")
        #expect(problem.contains("cannot be saved") && problem.contains(blocked), "\(problem)")
        #expect(!list.keepIfSaved(Self.message(1)), "not saved: a caller's saved copy stays the one")
        #expect(list.messages.isEmpty)
        #expect(list.saveProblem == problem)
        #expect(list.keep(Self.message(1)), "kept while the app runs")
        #expect(list.messages == [Self.message(1)])

        let store = InMemoryKeyValueStore()
        let kept = Messages.opening(store: { store }, persistence: { .workspaces(in: $0) })
        #expect(kept.storeProblem == nil)
        kept.keep(Self.message(2))
        #expect(Messages(persistence: .workspaces(in: store)).messages == [Self.message(2)])
        #expect(Messages().storeProblem == nil, "a list in memory on purpose has no problem")
    }

    @Test func anUnreadableDocumentIsKeptAsideNotOverwritten() throws {
        let store = InMemoryKeyValueStore()
        let persistence = UndeliveredMessagesPersistence<WorkspaceChatKey>.workspaces(in: store)
        let broken = Array(#"{"version":1,"messages":[{"id":"op-1","text":"Mein Text"#.utf8)
        try store.set(broken, forKey: persistence.key)

        let list = Messages(persistence: persistence)
        #expect(list.messages.isEmpty)
        #expect(list.loadProblem?.contains("kept aside") == true)
        #expect(try store.data(forKey: persistence.key + ".unreadable") == broken, "the text stays on disk")
        list.keep(Self.message(1))
        #expect(try store.data(forKey: persistence.key + ".unreadable") == broken)
    }

    @Test func aFailedSaveKeepsTheTextInMemoryAndSaysSo() {
        let list = Messages(persistence: .workspaces(in: FailingStore()))
        #expect(list.keep(Self.message(1)) == false)
        #expect(list.messages == [Self.message(1)], "dropping it would lose it")
        #expect(list.saveProblem?.contains("could not be saved") == true)
    }

    @Test func aDocumentThatCouldNotBeReadIsNotSavedOver() {
        let disk = InMemoryKeyValueStore()
        let persistence = UndeliveredMessagesPersistence<WorkspaceChatKey>.workspaces(in: disk)
        Messages(persistence: persistence).keep(Self.message(1))
        let flaky = FlakyReadStore(disk: disk)
        flaky.failsReads(true)
        let list = Messages(persistence: .workspaces(in: flaky))
        #expect(list.messages.isEmpty)
        #expect(list.loadProblem?.contains("could not be read") == true)
        #expect(list.keep(Self.message(2)) == false, "saving would replace a text it never read")
        #expect(list.saveProblem?.contains("could not be read") == true)
        #expect(Messages(persistence: persistence).messages.map(\.id) == ["op-1"], "the earlier text stays on disk")

        flaky.failsReads(false)
        #expect(list.keep(Self.message(3)) == true)
        #expect(list.messages.map(\.id) == ["op-1", "op-2", "op-3"], "read first, then saved with it")
        #expect(Messages(persistence: persistence).messages.map(\.id) == ["op-1", "op-2", "op-3"])
    }

    @Test func aTextKeptOnlyIfSavedDoesNotLetTheUnreadDocumentBeSavedOver() {
        let disk = FailingKeyValueStore()
        let persistence = UndeliveredMessagesPersistence<WorkspaceChatKey>.workspaces(in: disk)
        Messages(persistence: persistence).keep(Self.message(1))
        let flaky = FlakyReadStore(disk: disk)
        flaky.failsReads(true)
        let list = Messages(persistence: .workspaces(in: flaky))
        flaky.failsReads(false)
        disk.failWrites(true)
        // Read again now, but not saved: the list stays as it was, without the earlier text.
        #expect(list.keepIfSaved(Self.message(2)) == false)
        #expect(list.messages.isEmpty)
        disk.failWrites(false)
        #expect(list.keep(Self.message(3)) == true)
        #expect(Messages(persistence: persistence).messages.map(\.id) == ["op-1", "op-3"], "read again before saving")
    }

    @Test func aSecondUnreadableDocumentDoesNotReplaceTheFirstKeptAside() throws {
        let store = InMemoryKeyValueStore()
        let persistence = UndeliveredMessagesPersistence<WorkspaceChatKey>.workspaces(in: store)
        let first = Array(#"{"version":1,"messages":[{"id":"op-1","text":"Erster Text"#.utf8)
        let second = Array(#"{"version":1,"messages":[{"id":"op-2","text":"Zweiter Text"#.utf8)
        try store.set(first, forKey: persistence.key)
        #expect(Messages(persistence: persistence).loadProblem?.contains("kept aside") == true)
        try store.set(second, forKey: persistence.key)

        let list = Messages(persistence: persistence)
        #expect(list.loadProblem?.contains(persistence.key + ".unreadable-2") == true)
        #expect(try store.data(forKey: persistence.key + ".unreadable") == first, "the first copy stays")
        #expect(try store.data(forKey: persistence.key + ".unreadable-2") == second)
    }

    @Test func anUnreadableDocumentWithNoRoomAsideStaysWhereItIs() throws {
        let store = InMemoryKeyValueStore()
        let persistence = UndeliveredMessagesPersistence<WorkspaceChatKey>.workspaces(in: store)
        for copy in 1...16 {  // every copy aside the list keeps (maximumAsideCopies)
            let key = copy == 1 ? persistence.key + ".unreadable" : persistence.key + ".unreadable-\(copy)"
            try store.set(Array("copy \(copy)".utf8), forKey: key)
        }
        let broken = Array(#"{"version":1,"messages":[{"id":"op-1","text":"Mein Text"#.utf8)
        try store.set(broken, forKey: persistence.key)

        let list = Messages(persistence: persistence)
        #expect(list.loadProblem?.contains("nor kept aside") == true)
        #expect(list.keep(Self.message(2)) == false)
        #expect(list.messages.map(\.id) == ["op-2"], "kept in memory all the same")
        #expect(try store.data(forKey: persistence.key) == broken, "the unread texts are not saved over")
    }

    /// A store over `disk` whose reads fail while ``failsReads(_:)`` says so (an I/O error).
    private final class FlakyReadStore: KeyValueStore, Sendable {
        struct ReadFailed: Error, CustomStringConvertible {
            var description: String { "read failed (EIO)" }
        }

        let disk: any KeyValueStore
        private let failing = Locked(false)

        init(disk: any KeyValueStore) { self.disk = disk }

        func failsReads(_ fails: Bool) { failing.withLock { $0 = fails } }

        func data(forKey key: String) throws -> [UInt8]? {
            if failing.withLock({ $0 }) { throw ReadFailed() }
            return try disk.data(forKey: key)
        }

        func set(_ data: [UInt8], forKey key: String) throws { try disk.set(data, forKey: key) }

        func removeValue(forKey key: String) throws { try disk.removeValue(forKey: key) }
    }

    private struct FailingStore: KeyValueStore {
        struct Full: Error {}
        func data(forKey key: String) throws -> [UInt8]? { nil }
        func set(_ data: [UInt8], forKey key: String) throws { throw Full() }
        func removeValue(forKey key: String) throws { throw Full() }
    }
}
