import SybilClient
import SybilCore
import SybilNet
import SybilStore
import SybilTesting
import Testing

@testable import SybilTUI

/// The run loop over a recording terminal and the real chat models (a scripted stream, an
/// in-memory history): input bytes in, frames out, the reply drawn as it streams, quitting
/// and the restore on the way out.
@Suite("Terminal app runner", .timeLimit(.minutes(2)))
@MainActor
struct TerminalAppRunnerTests {
    /// A terminal that records frames and whether it was stopped.
    final class RecordingTerminal: AppTerminal {
        let events: AsyncStream<TerminalEvent>
        let continuation: AsyncStream<TerminalEvent>.Continuation
        private let state = Locked(
            (frames: [String](), stopped: false, suspends: 0, size: TerminalSize(columns: 60, rows: 16)))

        init() {
            (events, continuation) = AsyncStream<TerminalEvent>.makeStream()
        }

        var size: TerminalSize { state.withLock { $0.size } }
        var frames: [String] { state.withLock { $0.frames } }
        var stopped: Bool { state.withLock { $0.stopped } }
        var lastFrame: String { frames.last ?? "" }

        func resize(_ size: TerminalSize) {
            state.withLock { $0.size = size }
            continuation.yield(.resize(size))
        }

        func type(_ text: String) { continuation.yield(.input(Array(text.utf8))) }
        func present(_ grid: CellGrid, cursor: CursorPlacement?) { state.withLock { $0.frames.append(grid.text) } }
        var suspends: Int { state.withLock { $0.suspends } }
        func suspend() { state.withLock { $0.suspends += 1 } }
        func stop() { state.withLock { $0.stopped = true } }
    }

    /// Streams "Hallo" and " Welt", one delta per call to `release()`.
    /// One reply whose deltas the test sends. The stream exists from the start, so a delta
    /// sent before the app has asked for the reply (the typing indicator can show first) waits
    /// in the stream's buffer instead of being dropped.
    final class SteppedStreaming: ChatStreaming {
        private let stream: AsyncThrowingStream<String, any Error>
        private let continuation: AsyncThrowingStream<String, any Error>.Continuation
        init() { (stream, continuation) = AsyncThrowingStream<String, any Error>.makeStream() }
        func reply(to messages: [ChatMessage]) -> AsyncThrowingStream<String, any Error> { stream }
        func send(_ delta: String) { continuation.yield(delta) }
        func finish() { continuation.finish() }
    }

    /// A runner on a manual clock, its controller streaming step by step.
    private struct ClockedRun {
        let controller: TerminalAppController
        let terminal: RecordingTerminal
        let clock: ManualClock
        let run: Task<Void, Never>
    }

    /// Starts a runner on a manual clock and waits for its frame ticker's first wait.
    private func startClocked(sourceLocation: SourceLocation = #_sourceLocation) async -> ClockedRun {
        let controller = controller(streaming: SteppedStreaming())
        await controller.start()
        let terminal = RecordingTerminal()
        let clock = ManualClock()
        let runner = TerminalAppRunner(controller: controller, terminal: terminal, clock: clock)
        let run = Task { await runner.run() }
        #expect(await clock.waitForSleepers(count: 1), "the frame ticker", sourceLocation: sourceLocation)
        return ClockedRun(controller: controller, terminal: terminal, clock: clock, run: run)
    }

    /// Ends the input and waits for the runner; with `noWaitLeft`, checks that it left no wait
    /// on the clock behind.
    private func stop(
        _ clocked: ClockedRun, noWaitLeft: Comment? = nil, sourceLocation: SourceLocation = #_sourceLocation
    ) async {
        clocked.terminal.continuation.yield(.inputClosed)
        await clocked.run.value
        #expect(clocked.terminal.stopped, sourceLocation: sourceLocation)
        if let noWaitLeft {
            #expect(
                await clocked.clock.waitForSleepers(exactly: 0, limit: .seconds(5)), noWaitLeft,
                sourceLocation: sourceLocation)
        }
    }

    private func controller(streaming: any ChatStreaming) -> TerminalAppController {
        let store = InMemoryChatHistory()
        let chats = ChatListModel(
            streaming: streaming, store: store, model: "m", now: { 1_000 }, ids: SequentialIDGenerator(prefix: "id"),
            warmUp: nil)
        let services = TerminalAppServices(
            chats: chats, search: ChatSearchModel(store: store, clock: AnyClock(ContinuousClock())), agent: nil,
            workspaces: nil)
        return TerminalAppController(services: services, theme: .monochrome, size: TerminalSize(columns: 60, rows: 16))
    }

    @Test func aSentMessageAndItsReplyAreDrawnAsTheyStreamAndControlDQuits() async {
        let streaming = SteppedStreaming()
        let controller = controller(streaming: streaming)
        await controller.start()
        let terminal = RecordingTerminal()
        let runner = TerminalAppRunner(controller: controller, terminal: terminal, clock: ContinuousClock())
        let run = Task { await runner.run() }
        #expect(await ConditionWait.until { terminal.lastFrame.contains("Message Sybil…") })
        terminal.type("Grüß dich\r")
        #expect(await ConditionWait.until { terminal.lastFrame.contains("Sybil is typing") })
        streaming.send("Hallo")
        #expect(await ConditionWait.until { terminal.lastFrame.contains("Hallo") })
        streaming.send(" Welt")
        streaming.finish()
        #expect(await ConditionWait.until { terminal.lastFrame.contains("Hallo Welt") })
        #expect(await ConditionWait.until { !terminal.lastFrame.contains("typing") })
        #expect(terminal.lastFrame.contains("Grüß dich"))
        #expect(!terminal.stopped)
        terminal.type("\u{04}")
        await run.value
        #expect(terminal.stopped, "the terminal is put back on the way out")
    }

    @Test func aResizeRedrawsAtTheNewSizeAndTheEndOfInputQuits() async {
        let controller = controller(streaming: SteppedStreaming())
        await controller.start()
        let terminal = RecordingTerminal()
        let runner = TerminalAppRunner(controller: controller, terminal: terminal, clock: ContinuousClock())
        let run = Task { await runner.run() }
        #expect(await ConditionWait.until { !terminal.frames.isEmpty })
        terminal.resize(TerminalSize(columns: 30, rows: 8))
        #expect(
            await ConditionWait.until {
                terminal.lastFrame.split(separator: "\n", omittingEmptySubsequences: false).count == 8
            })
        terminal.continuation.yield(.inputClosed)
        await run.value
        #expect(terminal.stopped)
    }

    @Test func framesWaitTheFrameIntervalOnTheInjectedClockAndAStoppedRunnerLeavesNoWaitBehind() async {
        // The first frame is drawn at once; the frame ticker then waits on the clock.
        let clocked = await startClocked()
        let (terminal, clock) = (clocked.terminal, clocked.clock)
        #expect(terminal.lastFrame.contains("Message Sybil…"))
        terminal.type("Grüß")
        // The key asks for a frame 16 ms after the first one: a second wait on the clock.
        #expect(await clock.waitForSleepers(count: 2))
        #expect(!terminal.lastFrame.contains("Grüß"))
        let tick = Duration(secondsComponent: 0, attosecondsComponent: 1)
        clock.advance(by: .milliseconds(16) - tick)
        #expect(clock.sleeperCount == 2, "no frame one tick before 16 ms")
        clock.advance(by: tick)
        #expect(await ConditionWait.until { terminal.lastFrame.contains("Grüß") })
        // Another key asks for the next frame; the loop ends before it is due.
        terminal.type(" dich")
        #expect(await clock.waitForSleepers(count: 2))
        await stop(clocked, noWaitLeft: "the runner cancelled its frame wait and its ticker")
    }

    @Test func onlyTheNewestLoneEscWaitsForItsFlushAndAStoppedRunnerLeavesNoWaitBehind() async {
        let clocked = await startClocked()
        let (terminal, clock) = (clocked.terminal, clocked.clock)
        // Each input ends in a lone Esc that may begin a sequence: it waits 50 ms to be flushed.
        terminal.type("a\u{1b}")
        #expect(await clock.waitForSleepers(count: 3), "the ticker, the next frame and the Esc's wait")
        let started = clock.sleepsStarted
        terminal.type("b\u{1b}")
        terminal.type("c\u{1b}")
        // A replaced wait may end before it began: at least one more wait starts, and the
        // waits settle at three (never piling up one per Esc).
        #expect(await clock.waitForSleeps(after: started))
        #expect(
            await clock.waitForSleepers(exactly: 3, limit: .seconds(5)), "a newer Esc's wait replaced the older ones")
        await stop(clocked, noWaitLeft: "the runner cancelled the Esc's wait, its frame wait and its ticker")
    }

    /// The Esc's flush and the next key race under load; once the Esc's wait is over it is a
    /// lone Esc whichever is handled first. Without that, Ctrl+Z handled before the flush read
    /// as Alt+Ctrl+Z and the app never suspended.
    @Test func anEscWhoseWaitIsOverIsALoneEscWhenTheNextKeyComesBeforeItsFlush() async {
        let clocked = await startClocked()
        let (terminal, clock) = (clocked.terminal, clocked.clock)
        terminal.type("\u{1b}")
        #expect(await clock.waitForSleepers(count: 2), "the ticker and the Esc's wait")
        // Ctrl+Z comes, then the wait is over, before the runner gets the main actor back: the
        // key's forwarding is queued there before the flush's wake-up, and is handled first.
        terminal.type("\u{1a}")
        clock.advance(by: TerminalAppRunner<ManualClock>.escapeTimeout)
        #expect(await ConditionWait.until { terminal.suspends == 1 }, "Ctrl+Z suspended, not Alt+Ctrl+Z")
        #expect(clocked.controller.app.focus == .sidebar, "the Esc was a key of its own")
        await stop(clocked)
    }

    @Test func controlCTwiceQuitsAndALoneEscIsFlushedAsEsc() async {
        let controller = controller(streaming: SteppedStreaming())
        await controller.start()
        let terminal = RecordingTerminal()
        let runner = TerminalAppRunner(controller: controller, terminal: terminal, clock: ContinuousClock())
        let run = Task { await runner.run() }
        #expect(await ConditionWait.until { !terminal.frames.isEmpty })
        terminal.type("\u{1B}")
        // The lone Esc becomes the key after the escape timeout: focus moves to the sidebar.
        #expect(await ConditionWait.until { controller.app.focus == .sidebar })
        terminal.type("\u{03}")
        #expect(await ConditionWait.until { terminal.lastFrame.contains("Press Ctrl+C again to quit.") })
        terminal.type("\u{03}")
        await run.value
        #expect(terminal.stopped)
    }
}
