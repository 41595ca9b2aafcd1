import Foundation
import SybilClient
import SybilCore
import SybilNet
import SybilStore
import SybilTesting
import SybilWire
import Testing

@testable import SybilTUI

/// Seed 003's inline attachments in an ordinary chat of the terminal app: `/attach PATH` stages
/// a file (listed under the composer, numbered as `/detach` takes them), `/attachments` lists
/// them, `/detach N` and `/detach all` remove them, a file that cannot be attached is refused
/// at `/attach` and never blocks the text, and a sent message carries the staged files once
/// and unstages them.
@Suite("Terminal app: staged attachments in an ordinary chat", .timeLimit(.minutes(2)))
struct ChatStagedAttachmentsTests {
    static func text(_ name: String, _ content: String) -> ChatAttachment {
        ChatAttachment(name: name, mimeType: "text/plain; charset=utf-8", kind: .text, bytes: Array(content.utf8))
    }

    static func image(_ name: String, bytes: Int) -> ChatAttachment {
        ChatAttachment(name: name, mimeType: "image/png", kind: .image, bytes: Array(repeating: 7, count: bytes))
    }

    /// The rows of `grid` below the composer's row `row`, up to the status line.
    static func rows(_ grid: CellGrid, from row: Int, to end: Int) -> [String] {
        (row..<end).map { grid.text(row: $0) }
    }

    // MARK: The screen

    @Test(arguments: [80, 100])
    func theStagedFilesAreListedUnderTheComposerNumberedAndFittingTheWidth(columns: Int) {
        var app = TerminalApp(theme: .monochrome, size: TerminalSize(columns: columns, rows: 24))
        let long = String(repeating: "quarterly-report-", count: 8) + "final.txt"
        app.stageChatAttachments(
            [Self.text("notes.txt", "hello"), Self.image("cat.png", bytes: 40 * 1_024), Self.text(long, "x")],
            refusals: [])
        let size = TerminalSize(columns: columns, rows: 24)
        let grid = app.render(size: size).0
        let layout = AppLayout(size: size, composerLines: 1, attachmentLines: 3)
        #expect(layout.attachments.rows == 3)
        #expect(layout.attachments.row == layout.composer.endRow, "the list is right under the composer")
        #expect(layout.attachments.endRow == layout.status.row)
        #expect(grid.text(row: layout.composer.row).contains("Message Sybil…"))
        let listed = (layout.attachments.row..<layout.attachments.endRow).map {
            grid.text(row: $0).dropFirst(layout.attachments.column).trimmingCharacters(in: .whitespaces)
        }
        #expect(listed[0] == "1 notes.txt · 5 B text")
        #expect(listed[1] == "2 cat.png · 40 KB image")
        #expect(listed[2].hasPrefix("3 quarterly-report-"))
        #expect(listed[2].hasSuffix("… · 1 B text"), "the name is cut, the number and size stay")
        for row in listed {
            #expect(DisplayWidth.of(row) <= layout.attachments.columns, "\(row) fits \(layout.attachments.columns)")
        }
        #expect(grid.text(row: 23).contains("F1 keys"), "the status line stays last")
    }

    @Test func moreFilesThanRowsSayHowManyMoreAndNamesAreMadeSafe() {
        var app = TerminalApp(theme: .monochrome, size: TerminalSize(columns: 80, rows: 24))
        app.stageChatAttachments(
            [Self.text("evil\u{1B}[31m\nname.txt", "a")] + (1...4).map { Self.text("f\($0).txt", "b") }, refusals: [])
        let rows = ComposerAttachments.stagedRows(app.shownChatAttachments, width: 40)
        #expect(
            rows == [
                "1 evil\u{FFFD}[31m name.txt · 1 B text", "2 f1.txt · 1 B text", "+3 more · /attachments lists them",
            ])
        let grid = app.render(size: TerminalSize(columns: 80, rows: 24)).0
        #expect(!grid.text.unicodeScalars.contains("\u{1B}"), "no escape reaches the screen")
        #expect(ComposerAttachments.stagedRows([Self.text("a-very-long-name.txt", "z")], width: 12) == ["1 a-very-lo…"])
        #expect(ComposerAttachments.size(812) == "812 B")
        #expect(ComposerAttachments.size(1_300) == "1.2 KB")
        #expect(ComposerAttachments.size(3 << 20) == "3.0 MB")
    }

    @Test func otherScreensShowNoChatAttachmentsAndReturnSendsStagedFilesAlone() {
        var app = TerminalApp.withOneChat()
        #expect(app.handle(.press(.enter), now: .zero) == [], "an empty composer sends nothing")
        app.stageChatAttachments([Self.text("a.txt", "a")], refusals: [])
        #expect(app.notice == "Attached a.txt (1 B text) to the next message · /detach 1 removes it")
        #expect(app.handle(.press(.enter), now: .zero) == [.send("")], "the staged file goes alone")
        app.show(.agent, title: "Sybil Agent")
        #expect(app.shownChatAttachments.isEmpty)
        #expect(!app.render(size: app.size).0.text.contains("a.txt"))
        #expect(app.handle(.press(.enter), now: .zero) == [])
        app.show(.newChat, title: "New chat")
        #expect(app.render(size: app.size).0.text.contains("1 a.txt · 1 B text"), "staged across chats")
    }

    // MARK: The commands (one reading for both rooms)

    @Test func detachRemovesByNumberAndRefusesNamingTheValidRange() {
        var app = TerminalApp.withOneChat()
        app.chatDraftCommand(.list, text: "/attachments")
        #expect(app.notice == ComposerAttachments.noneStaged)
        app.chatDraftCommand(.detach(1), text: "/detach 1")
        #expect(app.notice == ComposerAttachments.noneStaged)
        app.stageChatAttachments([Self.text("a.txt", "a"), Self.image("b.png", bytes: 2_048)], refusals: [])
        app.chatDraftCommand(.list, text: "/attachments")
        #expect(app.notice == "Attached: 1 a.txt (1 B text) · 2 b.png (2.0 KB image) · /detach N removes")
        app.chatDraftCommand(.detach(3), text: "/detach 3")
        #expect(
            app.notice == "There is no attachment 3; /detach 1 to /detach 2 or /detach all (/attachments lists them).")
        let bad = "/detach two"
        guard let command = ComposerAttachments.draftCommand(bad) else {
            Issue.record("\(bad) is a draft command")
            return
        }
        app.chatDraftCommand(command, text: bad)
        #expect(app.notice == "Say which attachment “two”: /detach 1 to /detach 2, or /detach all.")
        #expect(app.composer.text == bad, "a command not understood goes back to the composer")
        app.composer.clear()
        #expect(app.chatAttachments.count == 2)
        app.chatDraftCommand(.detach(1), text: "/detach 1")
        #expect(app.notice == "Removed a.txt; it will not be sent.")
        #expect(app.shownChatAttachments.map(\.name) == ["b.png"])
        app.chatDraftCommand(.detach(2), text: "/detach 2")
        #expect(app.notice == "There is no attachment 2; /detach 1 or /detach all (/attachments lists them).")
        app.chatDraftCommand(.detachAll, text: "/detach all")
        #expect(app.notice == "Removed 1 attachment(s); none will be sent.")
        #expect(app.chatAttachments.isEmpty)
    }

    @Test func theAgentRoomResolvesTheSameCommandsTheSameWay() {
        let empty = "The draft has no attachments."
        #expect(ComposerAttachments.resolve(.detach(2), count: 3, empty: empty) == .remove(1))
        #expect(ComposerAttachments.resolve(.detachAll, count: 3, empty: empty) == .removeAll)
        #expect(ComposerAttachments.resolve(.detachAll, count: 0, empty: empty) == .refuse(empty))
        #expect(ComposerAttachments.resolve(.list, count: 0, empty: empty) == .list)
        guard case .refuse(let sentence) = ComposerAttachments.resolve(.invalid(""), count: 3, empty: empty) else {
            Issue.record("a bare /detach is refused")
            return
        }
        #expect(sentence == "Say which attachment: /detach 1 to /detach 3, or /detach all.")
    }

    @Test func aFileThatCannotBeAttachedIsRefusedWithASentenceAndTheOthersStay() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "sybil-stage-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let good = directory.appendingPathComponent("good.txt").path
        let binary = directory.appendingPathComponent("blob.bin").path
        try Data("fine".utf8).write(to: URL(fileURLWithPath: good))
        try Data([0, 1, 2, 0xFF]).write(to: URL(fileURLWithPath: binary))
        let missing = directory.appendingPathComponent("missing.txt").path
        let (read, refusals) = await TerminalAppController.readForStaging(
            [good, missing, binary], with: [], textLimit: ChatAttachmentFile.defaultTextLimit)
        #expect(read.map(\.name) == ["good.txt"])
        #expect(refusals.count == 2)
        #expect(refusals[0].contains("missing.txt") && refusals[0].contains("no such file"))
        #expect(refusals[1].contains("neither UTF-8 text nor"))
        let full = (1...ChatAttachment.maximumCount).map { Self.text("f\($0).txt", "x") }
        let (none, tooMany) = await TerminalAppController.readForStaging(
            [good], with: full, textLimit: ChatAttachmentFile.defaultTextLimit)
        #expect(none.isEmpty && tooMany.first?.contains("at most 8") == true)
        let (_, overText) = await TerminalAppController.readForStaging(
            [good], with: [Self.text("big.txt", "0123")], textLimit: 6)
        #expect(overText.first?.contains("the question's text with its text files") == true)
        var app = TerminalApp.withOneChat()
        app.stageChatAttachments(read, refusals: refusals)
        #expect(app.notice?.hasPrefix("Not attached: cannot read the file to attach") == true)
        #expect(app.notice?.hasSuffix("(the other files are attached). Return still sends the text.") == true)
        #expect(app.chatAttachments.count == 1)
    }
}

/// The controller's path for an ordinary chat's attachments, against a fake model that keeps
/// every request it is asked (as the messages the wire body is written from): attach, see it
/// listed, detach, attach again, send; the request carries the file once and the list is empty
/// afterwards.
@Suite("Terminal app: an ordinary chat's /attach reaches the model", .timeLimit(.minutes(2)))
@MainActor
struct ChatStagedAttachmentsControllerTests {
    /// Answers "ok" and keeps each request's messages.
    final class Recording: ChatStreaming, Sendable {
        let requests = Locked<[[ChatMessage]]>([])

        func reply(to messages: [ChatMessage]) -> AsyncThrowingStream<String, any Error> {
            requests.withLock { $0.append(messages) }
            return AsyncThrowingStream { continuation in
                continuation.yield("ok")
                continuation.finish()
            }
        }

        /// The JSON the request's messages are sent as.
        var bodies: [String] {
            requests.withLock { $0 }.map { messages in
                String(decoding: JSONWriter().bytes(from: .array(messages.map(\.jsonValue))), as: UTF8.self)
            }
        }
    }

    func type(_ text: String, into controller: TerminalAppController) {
        for character in text { controller.handle(.key(KeyEvent(.character(character))), now: .zero) }
        controller.handle(.key(KeyEvent(.enter)), now: .zero)
    }

    @Test func attachListDetachAttachAgainAndSendCarriesTheFileOnce() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "sybil-attach-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let marker = "marker-\(UUID().uuidString)"
        let path = directory.appendingPathComponent("notes.txt").path
        try Data("The plan: \(marker)\n".utf8).write(to: URL(fileURLWithPath: path))

        let store = InMemoryChatHistory()
        let model = Recording()
        let chats = ChatListModel(
            streaming: model, store: store, model: "m", now: { 1_000 }, ids: SequentialIDGenerator(prefix: "id"),
            warmUp: nil)
        let services = TerminalAppServices(
            chats: chats, search: ChatSearchModel(store: store, clock: AnyClock(ContinuousClock())), agent: nil,
            workspaces: nil)
        let size = TerminalSize(columns: 80, rows: 24)
        let controller = TerminalAppController(services: services, theme: .monochrome, size: size)
        await controller.start()

        // Attach: staged and listed under the composer, nothing sent.
        type("/attach \(path)", into: controller)
        await controller.settle()
        #expect(
            controller.app.notice
                == "Attached notes.txt (\(marker.utf8.count + 11) B text) to the next message · /detach 1 removes it")
        #expect(controller.app.chatAttachments.map { $0.attachment.name } == ["notes.txt"])
        var drawn = controller.app
        #expect(drawn.render(size: size).0.text.contains("1 notes.txt · "))
        #expect(controller.app.composer.isEmpty)
        #expect(model.bodies.isEmpty, "attaching sends nothing")
        type("/attachments", into: controller)
        #expect(controller.app.notice?.hasPrefix("Attached: 1 notes.txt (") == true)

        // Detach it, with a refusal naming the range first.
        type("/detach 2", into: controller)
        #expect(
            controller.app.notice == "There is no attachment 2; /detach 1 or /detach all (/attachments lists them).")
        type("/detach 1", into: controller)
        #expect(controller.app.notice == "Removed notes.txt; it will not be sent.")
        #expect(controller.app.chatAttachments.isEmpty)
        drawn = controller.app
        #expect(!drawn.render(size: size).0.text.contains("1 notes.txt · "), "the list under the composer is gone")

        // A file that cannot be read is refused and stages nothing.
        type("/attach \(directory.path)/missing.txt", into: controller)
        await controller.settle()
        #expect(controller.app.notice?.hasPrefix("Not attached: cannot read the file to attach") == true)
        #expect(controller.app.chatAttachments.isEmpty)

        // Attach again, then send: the request carries it once; the list is empty afterwards.
        type("/attach \(path)", into: controller)
        await controller.settle()
        #expect(controller.app.chatAttachments.count == 1)
        type("What is the plan?", into: controller)
        await controller.settle()
        let chat = try #require(controller.chat)
        #expect(await ConditionWait.until { !chat.isTyping && chat.messages.count == 2 })
        #expect(chat.messages.last?.text == "ok")
        let bodies = model.bodies
        #expect(bodies.count == 1)
        let body = try #require(bodies.first)
        #expect(body.components(separatedBy: marker).count == 2, "the file is in the request once")
        #expect(body.contains("What is the plan?"))
        #expect(body.contains("Attached file notes.txt:"))
        #expect(controller.app.chatAttachments.isEmpty, "the sent message unstaged it")
        controller.sync()
        drawn = controller.app
        #expect(!drawn.render(size: size).0.text.contains("1 notes.txt · "))
        await controller.close()
    }

    /// The app as launched over `history` and the staged files under `directory`.
    func launch(
        history: InMemoryChatHistory, model: Recording, directory: URL, size: TerminalSize
    ) async -> TerminalAppController {
        let chats = ChatListModel(
            streaming: model, store: history, model: "m", now: { 1_000 }, ids: SequentialIDGenerator(prefix: "id"),
            warmUp: nil)
        var services = TerminalAppServices(
            chats: chats, search: ChatSearchModel(store: history, clock: AnyClock(ContinuousClock())), agent: nil,
            workspaces: nil)
        services.chatAttachmentDrafts = ChatAttachmentDraftStore(
            storage: AgentAttachmentFileStore(
                directory: directory.path, baseURL: URL(string: "http://127.0.0.1:8799/v1")!,
                folder: "chat-attachments"))
        let controller = TerminalAppController(services: services, theme: .monochrome, size: size)
        await controller.start()
        return controller
    }

    @Test func stagedFilesSurviveARelaunchThatFollowsACrashAndASentMessageUnstagesThemForGood() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "sybil-attach-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let marker = "marker-\(UUID().uuidString)"
        let notes = directory.appendingPathComponent("notes.txt").path
        let plan = directory.appendingPathComponent("plan.md").path
        try Data("Notes \(marker)\n".utf8).write(to: URL(fileURLWithPath: notes))
        try Data("# Plan\n".utf8).write(to: URL(fileURLWithPath: plan))
        let history = InMemoryChatHistory()
        let model = Recording()
        let size = TerminalSize(columns: 80, rows: 24)

        // Attach two files, detach the first; the process then ends without closing anything.
        let first = await launch(history: history, model: model, directory: directory, size: size)
        type("/attach \(plan)", into: first)
        await first.settle()
        type("/attach \(notes)", into: first)
        await first.settle()
        type("/detach 1", into: first)
        await first.settle()
        #expect(first.app.chatAttachments.map(\.attachment.name) == ["notes.txt"])

        // Relaunched: the file is staged again, listed under the composer, and said so.
        try FileManager.default.removeItem(atPath: notes)
        let second = await launch(history: history, model: model, directory: directory, size: size)
        #expect(second.app.chatAttachments.map(\.attachment.name) == ["notes.txt"], "the saved bytes, not the file")
        #expect(second.app.notice == "1 file(s) staged before are still attached · /attachments lists them")
        var drawn = second.app
        #expect(drawn.render(size: size).0.text.contains("1 notes.txt · "))
        type("What is the plan?", into: second)
        await second.settle()
        let chat = try #require(second.chat)
        #expect(await ConditionWait.until { !chat.isTyping && chat.messages.count == 2 })
        #expect(model.bodies.count == 1)
        #expect(model.bodies.first?.components(separatedBy: marker).count == 2, "the restored file is sent once")
        #expect(second.app.chatAttachments.isEmpty)
        await second.settle()
        await second.close()

        // Sent: a later launch finds nothing staged.
        let third = await launch(history: history, model: model, directory: directory, size: size)
        #expect(third.app.chatAttachments.isEmpty)
        #expect(third.app.notice == nil)
        await third.close()
    }
}
