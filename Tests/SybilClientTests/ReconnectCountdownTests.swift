import SybilClient
import Testing

/// A reconnect wait on a status line counts down in whole seconds on the frame clock.
@Suite("Reconnect countdown")
struct ReconnectCountdownTests {
    @Test func aWaitCountsDownInWholeSecondsAndNeverShowsZero() {
        var countdown = ReconnectCountdown()
        let wait = Duration.seconds(16) + .milliseconds(127)
        let start = Duration.seconds(100)
        #expect(countdown.secondsLeft(reason: "refused", retryIn: wait, now: start) == 17)
        #expect(countdown.secondsLeft(reason: "refused", retryIn: wait, now: start + .milliseconds(127)) == 16)
        #expect(countdown.secondsLeft(reason: "refused", retryIn: wait, now: start + .milliseconds(128)) == 16)
        #expect(countdown.secondsLeft(reason: "refused", retryIn: wait, now: start + .seconds(10)) == 7)
        #expect(countdown.secondsLeft(reason: "refused", retryIn: wait, now: start + .seconds(16)) == 1)
        #expect(countdown.secondsLeft(reason: "refused", retryIn: wait, now: start + .seconds(40)) == 1, "overdue")
    }

    @Test func aNewAttemptStartsItsOwnCount() {
        var countdown = ReconnectCountdown()
        _ = countdown.secondsLeft(reason: "refused", retryIn: .seconds(2), now: .seconds(1))
        #expect(countdown.secondsLeft(reason: "refused", retryIn: .seconds(4), now: .seconds(5)) == 4)
        #expect(countdown.secondsLeft(reason: "reset", retryIn: .seconds(4), now: .seconds(6)) == 4)
        countdown.reset()
        #expect(countdown.secondsLeft(reason: "reset", retryIn: .seconds(4), now: .seconds(9)) == 4)
    }
}
