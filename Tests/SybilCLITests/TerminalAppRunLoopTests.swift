import Foundation
import SybilClient
import SybilCore
import SybilServer
import SybilStore
import SybilTUI
import SybilTesting
import SybilWire
import Testing

@testable import SybilCLI

/// The terminal app as a person uses it: the app's own services over
/// the reference server on a loopback socket, the real run loop, keys typed as bytes, and the
/// frames it presents. The screen models decide from what the terminal reports it drew.
@Suite("Terminal app over its run loop and the reference server", .timeLimit(.minutes(2)))
@MainActor
struct TerminalAppRunLoopTests {
    /// A terminal that records the frames presented.
    final class RecordingTerminal: AppTerminal {
        let events: AsyncStream<TerminalEvent>
        let continuation: AsyncStream<TerminalEvent>.Continuation
        let size: TerminalSize
        private let frames = Locked<[String]>([])

        init(size: TerminalSize) {
            self.size = size
            (events, continuation) = AsyncStream<TerminalEvent>.makeStream()
        }

        var frameCount: Int { frames.withLock { $0.count } }
        var lastFrame: String { frames.withLock { $0.last ?? "" } }
        func type(_ text: String) { continuation.yield(.input(Array(text.utf8))) }
        func present(_ grid: CellGrid, cursor: CursorPlacement?) {
            frames.withLock { $0.append(grid.text) }
        }
        func suspend() {}
        func stop() {}
    }

    /// The app over `server`, running, with its terminal.
    @MainActor
    struct Running {
        let controller: TerminalAppController
        let terminal: RecordingTerminal
        let run: Task<Void, Never>
        let data: URL
        /// Moves the app's clock on by one frame when it is a manual one (nothing on a live
        /// clock).
        var tick: @MainActor () -> Void = {}

        /// Types `keys` as one read of the terminal; the run loop handles reads in order, so
        /// a test waits for what the last keys of a sequence do (``until(_:)``).
        func type(_ keys: String) {
            terminal.type(keys)
        }

        /// Waits until `condition` holds over what the person sees (the app's state, the
        /// frames), moving a manual clock on by a frame each time it is checked, so frames and
        /// the screen model's ticks come only while the test waits for them.
        func until(_ condition: @escaping @MainActor () -> Bool) async -> Bool {
            await ConditionWait.until {
                tick()
                return condition()
            }
        }

        /// Quits with Ctrl+C twice and waits for the run loop to end.
        func quit() async {
            terminal.type("\u{03}\u{03}")
            await run.value
            try? FileManager.default.removeItem(at: data)
        }
    }

    private static let token = "tui-token"
    static let down = "\u{1B}[B"
    static let home = "\u{1B}[H"
    static let pageUp = "\u{1B}[5~"
    static let sessionKey = WorkspaceChatKey(desktopId: "desk-1", projectId: "proj-app", sessionId: "sess-42")

    private func start(_ server: ReferenceServer) async throws -> Running {
        try await start(server, on: ContinuousClock())
    }

    /// The app over `server` on a manual clock that moves a frame each time a test checks
    /// what it waits for.
    private func start(_ server: ReferenceServer, clock: ManualClock) async throws -> Running {
        var running = try await start(server, on: clock)
        running.tick = { clock.advance(by: TerminalAppRunner<ManualClock>.frameInterval) }
        return running
    }

    /// The app over `server` with its run loop, search, workspace hosts and screens on `clock`.
    private func start<C: Clock<Duration>>(_ server: ReferenceServer, on clock: C) async throws -> Running {
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("sybil-tui-\(UUID().uuidString)")
        let environment = [
            "SYBIL_API_URL": server.baseURL.absoluteString, "SYBIL_TOKEN": Self.token, "XDG_DATA_HOME": data.path,
        ]
        let io = TestIO(environment: environment).io
        let request = try #require(try TerminalAppCommand.parse([], environment: environment))
        let connection = try #require(request.common.target.connect(command: "test", io: io))
        let (services, _) = await TerminalAppCommand.services(
            request, store: InMemoryChatHistory(), connection: connection, io: io, clock: AnyClock(clock))
        let size = TerminalSize(columns: 100, rows: 30)
        let controller = TerminalAppController(services: services, theme: .monochrome, size: size)
        await controller.start()
        let terminal = RecordingTerminal(size: size)
        let runner = TerminalAppRunner(controller: controller, terminal: terminal, clock: clock)
        let run = Task { await runner.run() }
        return Running(controller: controller, terminal: terminal, run: run, data: data)
    }

    /// Opens `key` from the sidebar with the keys a person presses: Tab, Home, Down to its row,
    /// Return; waits until its rows are drawn.
    private func open(_ key: WorkspaceChatKey, in app: Running) async {
        #expect(await app.until { app.controller.app.sidebar.workspaces?.isEmpty == false })
        app.type("\t")
        app.type(Self.home)
        let destinations = app.controller.app.sidebar.rows.compactMap(\.destination)
        let index = try? #require(destinations.firstIndex(of: .session(key)))
        for _ in 0..<(index ?? 0) { app.type(Self.down) }
        #expect(await app.until { app.controller.app.sidebar.selection == .session(key) })
        app.type("\r")
        #expect(
            await app.until {
                app.controller.workspace?.screen.isCovered == false && !app.controller.app.items.isEmpty
            }, "the session's cover lifts once its rows are laid out")
    }

    private func server() throws -> ReferenceServer {
        var options = SybilServerOptions(token: Self.token)
        options.pace = .zero
        return try ReferenceServer(options: options)
    }

    @Test func scrollingUpASessionLoadsOlderPagesUntilTheFirstMessageKeepingTheReadersRow() async throws {
        let server = try server()
        defer { Task { await server.shutdown() } }
        let app = try await start(server, clock: ManualClock())
        await open(Self.sessionKey, in: app)
        let screen = try #require(app.controller.workspace?.screen)
        #expect(
            await app.until { app.terminal.lastFrame.contains("Fix login: question 40") },
            "the newest message drawn at the bottom")
        func showsTheFirstQuestion() -> Bool {
            app.terminal.lastFrame.split(separator: "\n").contains { line in
                guard let range = line.range(of: "Fix login: question 1") else { return false }
                return line[range.upperBound...].first?.isNumber != true
            }
        }
        #expect(!showsTheFirstQuestion(), "the first window starts later")
        let firstWindow = screen.displayRows.rows.count
        let hasOlder = screen.host.timeline.hasOlderEntries
        #expect(hasOlder, "sess-42's history is longer than the first window")
        let topRow = app.controller.app.items.first?.id

        // The timeline focused (composer → sidebar → timeline); Home goes to the oldest loaded
        // row, within 90 lines of the top: the screen model asks for the page before it.
        app.type("\t")
        app.type("\t")
        app.type(Self.home)
        // Drawn after the prepend: the older page's lines are above the viewport.
        #expect(
            await app.until {
                // A page shorter than 90 lines loads the next one too: at least one.
                screen.displayRows.rows.count > firstWindow
                    && (app.controller.app.timelineViewport?.linesAbove ?? 0) > 0
            })
        #expect(screen.displayRows.rows.count > firstWindow)
        let shown = try #require(app.controller.app.timelineViewport?.items.first)
        #expect(
            shown.id == topRow,
            """
            the row the reader was at is still on the top row after the prepend \
            (\(screen.displayRows.rows.count) rows after \(firstWindow), \
            \(app.controller.app.timelineViewport?.linesAbove ?? -1) lines above)
            """)
        #expect(shown.row == 0)

        // Paging on up loads page after page until the first message.
        var presses = 0
        func top() -> (String?, Int?) {
            (app.controller.app.timelineViewport?.items.first?.id, app.controller.app.timelineViewport?.linesAbove)
        }
        while !showsTheFirstQuestion(), presses < 200 {
            let before = top()
            app.type(Self.pageUp)
            presses += 1
            // Each page up moves the reader, or waits for the page above to load.
            #expect(
                await app.until { top() != before || screen.isLoadingOlderPage || showsTheFirstQuestion() },
                "page up \(presses) moved the view")
            if screen.isLoadingOlderPage { _ = await app.until { !screen.isLoadingOlderPage } }
        }
        #expect(showsTheFirstQuestion(), "after \(presses) pages up")
        let hasMore = screen.host.timeline.hasOlderEntries
        #expect(!hasMore, "every page loaded")
        await app.quit()
    }

    @Test func attachLinesUploadTheFilesBeforeTheMessageAndAMissingFileGivesTheDraftBack() async throws {
        let server = try server()
        defer { Task { await server.shutdown() } }
        let app = try await start(server)
        defer { try? FileManager.default.removeItem(at: app.data) }
        await open(Self.sessionKey, in: app)
        let session = try #require(app.controller.workspace)
        try FileManager.default.createDirectory(at: app.data, withIntermediateDirectories: true)
        let file = app.data.appendingPathComponent("build.log")
        try Data(repeating: 0x61, count: 3 << 20).write(to: file)

        // A path that does not exist: nothing is sent and the whole draft comes back.
        let missing = app.data.appendingPathComponent("missing.log").path
        app.type("/attach \(missing)\nSieh dir das an\r")
        #expect(await ConditionWait.until { app.controller.app.notice?.contains("nothing was sent") == true })
        #expect(app.controller.app.composer.text == "/attach \(missing)\nSieh dir das an")
        #expect(session.composer.deliveries.isEmpty)
        #expect(session.composer.attachments.isEmpty, "the failed file is not kept for the next message")

        // Ctrl+U, Backspace, Ctrl+U clear the two lines; then a real file, uploaded in chunks,
        // then the message.
        app.type("\u{15}\u{7F}\u{15}")
        #expect(await app.until { app.controller.app.composer.isEmpty })
        app.type("/attach \(file.path)\nSieh dir das an\r")
        // Accepted, or already confirmed by the desktop's history (the delivery then leaves the
        // composer's list, so the accepted state alone can pass unseen).
        #expect(
            await ConditionWait.until {
                session.composer.deliveries.contains { $0.state == .accepted && $0.text == "Sieh dir das an" }
                    || session.screen.displayRows.rows.contains {
                        $0.state == .confirmed && $0.operationId != nil && $0.text.contains("Sieh dir das an")
                    }
            },
            """
            the desktop accepted the message with its finished upload (deliveries \
            \(session.composer.deliveries.map { "\($0.text): \($0.state)" }), notice \
            \(app.controller.app.notice ?? "none"), composer \(app.controller.app.composer.text.debugDescription))
            """)
        #expect(session.composer.attachments.isEmpty)
        #expect(app.controller.app.composer.isEmpty)
        await app.quit()
    }

    @Test func aReplyThatArrivedWhileTheRoomWasClosedIsMarkedNewWhenItOpens() async throws {
        let server = try server()
        defer { Task { await server.shutdown() } }
        let app = try await start(server)
        defer { try? FileManager.default.removeItem(at: app.data) }
        let room = try #require(app.controller.services.agent?.room)
        // Another device writes to the room; the scripted agent answers while a chat is open.
        let receipt = try await room.api.submit(
            AgentRoomSubmission(requestId: "other-device-1", text: "Bist du da?", createdAt: 1_800_000_000_000))
        #expect(receipt.requestId == "other-device-1")
        #expect(await ConditionWait.until { app.controller.app.sidebar.agentUnread > 0 }, "the sidebar badge")
        // Tab to the sidebar, Home, down to the room, Return.
        app.type("\t")
        app.type(Self.home)
        let index = try #require(app.controller.app.sidebar.rows.compactMap(\.destination).firstIndex(of: .agent))
        for _ in 0..<index { app.type(Self.down) }
        app.type("\r")
        #expect(
            await ConditionWait.until {
                let frame = app.terminal.lastFrame
                guard let marker = frame.range(of: "── new ──"), let question = frame.range(of: "Bist du da?") else {
                    return false
                }
                return question.upperBound < marker.lowerBound
            }, "the new marker sits below the question, above the reply")
        #expect(await ConditionWait.until { room.unreadCount == 0 }, "at the bottom, the reply is read")
        #expect(app.terminal.lastFrame.contains("── new ──"), "reading does not take the marker away")
        await app.quit()
    }
}
