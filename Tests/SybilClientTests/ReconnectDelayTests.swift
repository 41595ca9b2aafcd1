import SybilClient
import Testing

/// A wait before reconnecting reads as whole seconds, rounded up.
@Suite("Reconnect delay on a status line", .timeLimit(.minutes(2)))
struct ReconnectDelayTests {
    @Test func wholeSecondsRoundedUp() {
        #expect(ReconnectDelay.seconds(.seconds(1)) == 1)
        #expect(ReconnectDelay.seconds(.nanoseconds(1_004_429_421)) == 2)
        #expect(ReconnectDelay.seconds(.seconds(16) + .milliseconds(127)) == 17)
        #expect(ReconnectDelay.seconds(.zero) == 1, "never 0 s")
        #expect(ReconnectDelay.seconds(.seconds(-3)) == 1)
    }

    @Test func theConnectionReadsAsASentence() {
        let dropped = AgentRoomModel.Connection.reconnecting(
            reason: "the stream ended\n\u{1B}[2J", retryIn: .nanoseconds(1_004_429_421))
        #expect(dropped.description == "reconnecting in 2 s (the stream ended \u{FFFD}[2J)")
        #expect(AgentRoomModel.Connection.connected.description == "connected")
        let feed = WorkspaceLiveFeed.Connection.reconnecting(reason: "", retryIn: .seconds(4))
        #expect(feed.description == "reconnecting in 4 s")
    }
}
