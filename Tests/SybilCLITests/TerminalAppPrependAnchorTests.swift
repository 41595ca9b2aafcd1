import Foundation
import SybilClient
import SybilServer
import SybilStore
import SybilTUI
import SybilTesting
import SybilWire
import Testing

@testable import SybilCLI

/// The terminal app's controller driven step by step the way its run loop drives it (keys,
/// draws, frame ticks), over the reference server: the order of a draw, a key and a tick is
/// the test's, not the scheduler's.
@Suite("Terminal app: the prepend anchor and the person's scroll", .timeLimit(.minutes(2)))
@MainActor
struct TerminalAppPrependAnchorTests {
    private static let token = "anchor-token"
    private static let size = TerminalSize(columns: 100, rows: 30)
    private static let sessionKey = WorkspaceChatKey(desktopId: "desk-1", projectId: "proj-app", sessionId: "sess-42")

    /// The controller and the keys, draws and ticks a run loop would give it.
    @MainActor
    struct Driven {
        let controller: TerminalAppController
        var decoder = TerminalInputDecoder()

        /// What the run loop does to draw: copy the models in, render.
        func draw() {
            controller.sync()
            _ = controller.render(size: TerminalAppPrependAnchorTests.size)
        }

        /// One frame tick of the screen model, and the draw it asks for.
        func tick() {
            _ = controller.frame(now: .zero)
            draw()
        }

        /// Handles the keys `bytes` decode to, then draws.
        mutating func type(_ bytes: String) {
            for input in decoder.feed(Array(bytes.utf8)) { _ = controller.handle(input, now: .zero) }
            draw()
        }

        /// Ticks and draws, as the run loop keeps doing, until `done` holds.
        func tick(until done: @escaping @MainActor () -> Bool) async -> Bool {
            await ConditionWait.until {
                tick()
                return done()
            }
        }

        /// The first item on the timeline's top row, with the lines above it.
        var top: (id: String?, linesAbove: Int) {
            (controller.app.timelineViewport?.items.first?.id, controller.app.timelineViewport?.linesAbove ?? -1)
        }
    }

    @Test func aPageScrolledRightAfterAPrependIsNotUndoneByTheNextTick() async throws {
        var options = SybilServerOptions(token: Self.token)
        options.pace = .zero
        let server = try ReferenceServer(options: options)
        defer { Task { await server.shutdown() } }
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("sybil-anchor-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: data) }
        let environment = [
            "SYBIL_API_URL": server.baseURL.absoluteString, "SYBIL_TOKEN": Self.token, "XDG_DATA_HOME": data.path,
        ]
        let io = TestIO(environment: environment).io
        let request = try #require(try TerminalAppCommand.parse([], environment: environment))
        let connection = try #require(request.common.target.connect(command: "test", io: io))
        let (services, _) = await TerminalAppCommand.services(
            request, store: InMemoryChatHistory(), connection: connection, io: io, clock: AnyClock(ContinuousClock()))
        let controller = TerminalAppController(services: services, theme: .monochrome, size: Self.size)
        await controller.start()
        controller.resize(Self.size)
        var app = Driven(controller: controller)
        app.draw()

        // Open sess-42 from the sidebar and let its cover lift at the bottom.
        #expect(await ConditionWait.until { controller.app.sidebar.workspaces?.isEmpty == false })
        app.type("\t")
        app.type("\u{1B}[H")
        let destinations = controller.app.sidebar.rows.compactMap(\.destination)
        let index = try #require(destinations.firstIndex(of: .session(Self.sessionKey)))
        for _ in 0..<index { app.type("\u{1B}[B") }
        app.type("\r")
        #expect(await ConditionWait.until { controller.workspace != nil })
        let screen = try #require(controller.workspace?.screen)
        #expect(await app.tick(until: { !screen.isCovered && !controller.app.items.isEmpty }))

        // The timeline focused, Home: the reader is at the oldest loaded row, near the top, and
        // the page before it is asked for.
        let oldest = controller.app.items.first?.id
        let firstWindow = screen.displayRows.rows.count
        app.type("\t")
        app.type("\t")
        app.type("\u{1B}[H")
        #expect(app.top.id == oldest && app.top.linesAbove == 0)
        #expect(
            await ConditionWait.until { screen.displayRows.rows.count > firstWindow }, "the page before it was added")
        // The draw after the prepend: the reader's row is still on the top row, the page above.
        app.draw()
        #expect(app.top.id == oldest && app.top.linesAbove > 0, "top \(app.top)")
        #expect(controller.app.scroll.position == .anchored(itemId: try #require(oldest), lineOffset: 0))

        // Pages up before the next tick, until the top is within the measured lines (the
        // report counts at most 91 lines above): the tick must not move the reader back.
        var pages = 0
        while app.top.linesAbove >= WorkspaceViewportReport.measuredLines, pages < 20 {
            app.type("\u{1B}[5~")
            pages += 1
        }
        let scrolled = controller.app.scroll.position
        #expect(app.top.linesAbove < WorkspaceViewportReport.measuredLines, "after \(pages) pages up: \(app.top)")
        #expect(scrolled != .anchored(itemId: try #require(oldest), lineOffset: 0))
        app.tick()
        #expect(controller.app.scroll.position == scrolled, "top \(app.top) after \(pages) pages up")
        await controller.close()
    }
}
