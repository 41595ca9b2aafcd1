import SybilClient
import SybilWire
import Testing

/// Seed 004: a meditation session is saved as a local-first record with the time spent.
@Suite("Meditation session")
struct MeditationSessionTests {
    @Test func minutesAreRangeCheckedAtBothEnds() {
        #expect(MeditationSession(minutes: 0) == nil)
        #expect(MeditationSession(minutes: 1)?.plannedSeconds == 60)
        #expect(MeditationSession(minutes: 180)?.plannedSeconds == 10_800)
        #expect(MeditationSession(minutes: 181) == nil)
        #expect(MeditationSession(minutes: -5) == nil)
        #expect(MeditationSession(minutes: Int.max) == nil)
        #expect(MeditationSession.minutesRange.contains(MeditationSession.defaultMinutes))
    }

    @Test func theTimerCountsDownInWholeSecondsRoundedUp() throws {
        let session = try #require(MeditationSession(minutes: 10))
        #expect(session.timer(after: 0) == "10:00 left")
        #expect(session.timer(after: 0.2) == "10:00 left")
        #expect(session.timer(after: 1) == "9:59 left")
        #expect(session.timer(after: 550.5) == "0:50 left")
        #expect(session.timer(after: 595) == "0:05 left")
        #expect(session.timer(after: 599.9) == "0:01 left")
        #expect(session.timer(after: 600) == "done")
        #expect(session.timer(after: 10_000) == "done")
        #expect(!session.isFinished(after: 599.9))
        #expect(session.isFinished(after: 600))
    }

    @Test func aBrokenClockReadingShowsTheFullTime() throws {
        let session = try #require(MeditationSession(minutes: 1))
        #expect(session.secondsLeft(after: -3) == 60)
        #expect(session.secondsLeft(after: .nan) == 60)
        #expect(session.secondsLeft(after: .infinity) == 60)
    }

    @Test func theRecordHoldsTheWholeSecondsSpentAtMostThePlannedTime() throws {
        let session = try #require(MeditationSession(minutes: 1))
        #expect(session.recordedSeconds(after: 0) == nil)
        #expect(session.recordedSeconds(after: 0.999) == nil)
        #expect(session.recordedSeconds(after: 1) == 1)
        #expect(session.recordedSeconds(after: 42.9) == 42)
        #expect(session.recordedSeconds(after: 60) == 60)
        #expect(session.recordedSeconds(after: 61) == 60)
        #expect(session.recordedSeconds(after: .nan) == nil)
        #expect(session.recordedSeconds(after: .infinity) == nil)
    }

    @Test func theLongestSessionFitsARecord() throws {
        let session = try #require(MeditationSession(minutes: MeditationSession.minutesRange.upperBound))
        let seconds = try #require(session.recordedSeconds(after: 1e9))
        #expect(Record.durationRange.contains(Int64(seconds)))
    }
}
