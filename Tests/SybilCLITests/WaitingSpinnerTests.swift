import SybilCore
import SybilTesting
import Testing

@testable import SybilCLI

/// The spinner shown on standard error while nothing of the reply has arrived.
@Suite("Waiting spinner", .timeLimit(.minutes(2)))
struct WaitingSpinnerTests {
    @Test func theLineIsAFrameWhatIsAwaitedAndTheElapsedWholeSeconds() {
        #expect(WaitingSpinner.line(elapsed: .zero, waking: true) == "⠋ waking the service 0s")
        #expect(WaitingSpinner.line(elapsed: .milliseconds(99), waking: true) == "⠋ waking the service 0s")
        #expect(WaitingSpinner.line(elapsed: .milliseconds(100), waking: true) == "⠙ waking the service 0s")
        #expect(WaitingSpinner.line(elapsed: .milliseconds(999), waking: false) == "⠏ waiting for the reply 0s")
        #expect(WaitingSpinner.line(elapsed: .seconds(1), waking: false) == "⠋ waiting for the reply 1s")
        #expect(WaitingSpinner.line(elapsed: .milliseconds(12_345), waking: false) == "⠸ waiting for the reply 12s")
        #expect(WaitingSpinner.line(elapsed: .milliseconds(-5), waking: false) == "⠋ waiting for the reply 0s")
    }

    final class Lines: Sendable {
        let written = Locked<[String]>([])
        func write(_ text: String) { written.withLock { $0.append(text) } }
        var all: [String] { written.withLock { $0 } }
    }

    @Test func theIndicatorDrawsAFrameEachIntervalOfItsClockAndErasesTheLineWhenStopped() async {
        let clock = ManualClock()
        let lines = Lines()
        let waking = Locked(true)
        let indicator = WaitingIndicator(clock: clock, write: lines.write) { _ in waking.withLock { $0 } }
        indicator.start()
        await clock.waitForSleepers(count: 1)
        #expect(lines.all == ["\r⠋ waking the service 0s\u{1B}[K"])
        waking.withLock { $0 = false }
        for frame in 1...10 {
            clock.advance(by: WaitingSpinner.frameInterval)
            await clock.waitForSleeps(after: frame)  // frame drawn, next sleep started
        }
        #expect(lines.all.count == 11)
        #expect(lines.all.last == "\r⠋ waiting for the reply 1s\u{1B}[K")
        await indicator.finish()
        #expect(lines.all.last == "\r\u{1B}[K")
        clock.advance(by: .seconds(5))
        #expect(lines.all.count == 12, "nothing after the end")
        indicator.stop()
        #expect(lines.all.count == 12, "erased once")
    }

    @Test func anIndicatorStoppedBeforeItDrewWritesNothing() async {
        let indicator = WaitingIndicator(
            clock: ManualClock(), write: { _ in Issue.record("drew") }, isWaking: { _ in false })
        indicator.stop()
        indicator.start()
        await indicator.finish()
    }
}
