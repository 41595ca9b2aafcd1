import Foundation
import SybilClient
import SybilCore
import SybilServer
import SybilStore
import SybilTUI
import SybilTesting
import Testing

@testable import SybilCLI

/// Seed 003's attachment cards as a person uses them: the app's own services over the reference
/// server on a loopback socket and the real run loop; a file attached in the Agent room becomes
/// a card, `v` shows its verified original as text (HTML never rendered, escapes never obeyed),
/// `e` exports it next to a file of the same name without overwriting it.
@Suite("Terminal app attachment cards over the reference server", .timeLimit(.minutes(2)))
@MainActor
struct TerminalAppAttachmentCardTests {
    private static let token = "card-token"

    @Test func aCardIsPreviewedAsTextAndExportedBesideAnExistingFile() async throws {
        var options = SybilServerOptions(token: Self.token)
        options.pace = .zero
        let server = try ReferenceServer(options: options)
        defer { Task { await server.shutdown() } }
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("sybil-cards-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: data) }
        let exports = data.appendingPathComponent("exports")
        try FileManager.default.createDirectory(at: exports, withIntermediateDirectories: true)
        let environment = [
            "SYBIL_API_URL": server.baseURL.absoluteString, "SYBIL_TOKEN": Self.token, "XDG_DATA_HOME": data.path,
        ]
        let io = TestIO(environment: environment).io
        let request = try #require(try TerminalAppCommand.parse([], environment: environment))
        let connection = try #require(request.common.target.connect(command: "test", io: io))
        var (services, _) = await TerminalAppCommand.services(
            request, store: InMemoryChatHistory(), connection: connection, io: io, clock: AnyClock(ContinuousClock()))
        #expect(services.attachmentDownloads != nil, "the app is wired to download originals")
        services.exportDirectory = exports.path
        let size = TerminalSize(columns: 100, rows: 30)
        let controller = TerminalAppController(services: services, theme: .monochrome, size: size)
        await controller.start()
        let terminal = TerminalAppRunLoopTests.RecordingTerminal(size: size)
        let runner = TerminalAppRunner(controller: controller, terminal: terminal, clock: ContinuousClock())
        let run = Task { await runner.run() }
        let app = TerminalAppRunLoopTests.Running(controller: controller, terminal: terminal, run: run, data: data)

        // To the room: Tab to the sidebar, Home, down to the room, Return.
        app.type("\t")
        app.type(TerminalAppRunLoopTests.home)
        let index = try #require(controller.app.sidebar.rows.compactMap(\.destination).firstIndex(of: .agent))
        for _ in 0..<index { app.type(TerminalAppRunLoopTests.down) }
        app.type("\r")
        #expect(await app.until { controller.app.sidebar.current == .agent })

        // Files are offered once the room's descriptor has said it takes them (a slow machine
        // may still be loading it here).
        let composer = try #require(services.agent)
        #expect(await app.until { composer.draft.canSelect }, "the room offers attachments")
        let original = Array("<b>bold</b>\u{1B}]0;pwned\u{07}\n<svg onload=\"alert(1)\"></svg>\n".utf8)
        let file = data.appendingPathComponent("page.html")
        try Data(original).write(to: file)
        app.type("/attach \(file.path)\nhere is a page\r")
        #expect(
            await ConditionWait.until { controller.app.attachmentCards.contains { $0.fileName == "page.html" } },
            "the room echoes the message with its card (notice: \(controller.app.notice ?? "none"))")

        // Tab twice: composer → sidebar → timeline; v previews the newest card.
        app.type("\t")
        app.type("\t")
        #expect(await app.until { controller.app.focus == .timeline })
        app.type("v")
        #expect(
            await ConditionWait.until { terminal.lastFrame.contains("<svg onload=\"alert(1)\"></svg>") },
            "the preview shows the HTML as text")
        let frame = terminal.lastFrame
        #expect(frame.contains("page.html · text/html · \(original.count) bytes · shown as text, never rendered"))
        #expect(frame.contains("<b>bold</b>"))
        #expect(!frame.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 }, "no escape is obeyed")
        app.type("q")
        #expect(await app.until { controller.app.overlay == nil })

        // A file of the same name is already there: the export goes beside it.
        let taken = exports.appendingPathComponent("page.html")
        try Data("mine".utf8).write(to: taken)
        app.type("e")
        let second = exports.appendingPathComponent("page (2).html")
        #expect(
            await ConditionWait.until { controller.app.notice?.hasPrefix("Saved page.html (verified) to ") == true },
            "the notice says where (\(controller.app.notice ?? "none"))")
        #expect(controller.app.notice == "Saved page.html (verified) to \(second.path)")
        #expect(try Data(contentsOf: taken) == Data("mine".utf8), "the existing file is untouched")
        #expect(try Array(Data(contentsOf: second)) == original, "the export is the exact original")
        await app.quit()
    }
}
