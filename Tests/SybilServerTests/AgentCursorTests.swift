import Foundation
import SybilCore
import SybilNet
import SybilWire
import Testing

@testable import SybilServer

/// Cursors from clients are hostile: every route that takes one range-checks it and never
/// traps; a valid cursor beyond the newest message is simply an empty page.
@Suite("Reference server: Agent cursors", .timeLimit(.minutes(2)))
struct AgentCursorTests {
    /// Cursors the server never issues: too many digits for an Int64, extra leading zeros,
    /// too few digits, signs, nothing, other characters.
    static let refused = [
        "c-9223372036854775808", "c-99999999999999999999", "c-" + String(repeating: "9", count: 40),
        "c-0000000000000000001", "c-00000000000000000000000000001", "c-42", "c-00000042", "c-", "c--1",
        "c--000000001", "c-+00000001", "c-0000000 1", "c-00000000\u{0661}", "C-000000001", "c_000000001",
        "000000001", "", "c-000000001c",
    ]

    @Test func canonicalCursorsRoundTripOverTheWholeRange() {
        for sequence: Int64 in [0, 1, 42, 999_999_999, 1_000_000_000, 9_007_199_254_740_991, .max] {
            let cursor = AgentRoomCursor.cursor(sequence)
            #expect(AgentRoomCursor.sequence(of: cursor.rawValue) == sequence)
        }
        #expect(AgentRoomCursor.cursor(42).rawValue == "c-000000042")
        #expect(AgentRoomCursor.cursor(1_000_000_000).rawValue == "c-1000000000")
        #expect(AgentRoomCursor.cursor(.max).rawValue == "c-9223372036854775807")
        #expect(AgentRoomCursor.cursor(999_999_999) < AgentRoomCursor.cursor(1_000_000_000))
    }

    @Test("text that is not a canonical cursor names no sequence", arguments: refused)
    func refusedCursors(text: String) {
        #expect(AgentRoomCursor.sequence(of: text) == nil)
    }

    private func roomWithOneTurn() async throws -> AppHarness {
        let harness = try AppHarness()
        _ = await harness.submit("req-1", text: "hello")
        await harness.waitUntilAgentIdle()
        return harness
    }

    private static func query(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? text
    }

    @Test("every route taking a cursor refuses one it never issued, naming the parameter", arguments: refused)
    func everyRouteRefusesHostileCursors(text: String) async throws {
        let harness = try await roomWithOneTurn()
        for name in ["after", "before"] {
            let response = await harness.send("GET", "/agent/messages?\(name)=\(Self.query(text))")
            #expect(response.status == 400, "\(name)=\(text)")
            #expect(try APIErrorBody.decode(json(response), at: .root).param == name)
        }
        let stream = await harness.send(
            "GET", "/agent/stream?after=\(Self.query(text))", headers: AppHarness.upgradeHeaders)
        #expect(stream.status == 400)
        #expect(try APIErrorBody.decode(json(stream), at: .root).param == "after")
        let read = await harness.send(
            "POST", "/agent/read", body: JSONWriter().bytes(from: ["cursor": .string(text)]))
        #expect(read.status == 400)
        #expect(try APIErrorBody.decode(json(read), at: .root).param == "cursor")
    }

    @Test func theLargestCursorIsAnEmptyPageAfterAndEverythingBefore() async throws {
        let harness = try await roomWithOneTurn()
        let max = "c-9223372036854775807"
        let after = try AgentRoomPage.decode(json(await harness.send("GET", "/agent/messages?after=\(max)")), at: .root)
        #expect(after.messages.isEmpty)
        #expect(after.nextCursor?.rawValue == max)
        #expect(after.hasMoreBefore)
        let before = try AgentRoomPage.decode(
            json(await harness.send("GET", "/agent/messages?before=\(max)")), at: .root)
        #expect(before.messages.map(\.messageId) == ["msg-1", "msg-2", "msg-3"])
        #expect(!before.hasMoreBefore)
        let read = await harness.send("POST", "/agent/read", json: #"{"cursor": "\#(max)"}"#)
        #expect(read.status == 400, "no message has that cursor")
        #expect(try AgentReadState.decode(json(await harness.send("GET", "/agent/read")), at: .root).readCursor == nil)
    }

    @Test func cursorsBeyondTheNewestAndTheZeroCursorArePagesToo() async throws {
        let harness = try await roomWithOneTurn()
        let beyond = try AgentRoomPage.decode(
            json(await harness.send("GET", "/agent/messages?after=c-000000099")), at: .root)
        #expect(beyond.messages.isEmpty)
        #expect(beyond.hasMoreBefore)
        let zero = try AgentRoomPage.decode(
            json(await harness.send("GET", "/agent/messages?after=c-000000000")), at: .root)
        #expect(zero.messages.count == 3)
        #expect(!zero.hasMoreBefore)
        let oldest = try AgentRoomPage.decode(
            json(await harness.send("GET", "/agent/messages?before=c-000000001")), at: .root)
        #expect(oldest == AgentRoomPage(messages: [], nextCursor: nil, hasMoreBefore: false))
        let emptyRoom = try AppHarness()
        let none = try AgentRoomPage.decode(
            json(await emptyRoom.send("GET", "/agent/messages?after=c-9223372036854775807")), at: .root)
        #expect(none.messages.isEmpty)
        #expect(!none.hasMoreBefore)
    }

    /// A client that does not ask for close 4410 (one that does not know it, e.g. the iOS app)
    /// is served as before the code existed: from a cursor beyond the newest message nothing is
    /// replayed, and the stream stays open with the agent's activity arriving.
    @Test(arguments: ["c-000000004", "c-9223372036854775807"])
    func aStreamFromBeyondTheNewestMessageWithoutTheOptInStaysAlive(after: String) async throws {
        let harness = try await roomWithOneTurn()
        let probe = try await harness.openStream("/agent/stream?after=\(after)")
        var frames = probe.frames.makeAsyncIterator()
        // The session's ping loop sleeps once the replay is done and it listens live.
        #expect(await harness.clock.waitForSleepers(count: 1))
        _ = await harness.submit("req-2", text: "again")
        // Messages are all older than the cursor; the agent's activity still arrives.
        let (activity, seen) = await probe.next(&frames) { frame -> String? in
            if case .event(.activity(.working, let detail)) = frame { return detail }
            return nil
        }
        #expect(activity != nil)
        #expect(!seen.contains { if case .event(.message) = $0 { true } else { false } })
        #expect(!seen.contains { if case .close = $0 { true } else { false } })
        await probe.close()
    }

    @Test("the opt-in takes only its one value, named when refused", arguments: ["", "true", "CLOSE", "close "])
    func theOptInRefusesOtherValues(value: String) async throws {
        let harness = try await roomWithOneTurn()
        let response = await harness.send(
            "GET", "/agent/stream?after=c-000000004&historyLost=\(Self.query(value))",
            headers: AppHarness.upgradeHeaders)
        #expect(response.status == 400)
        #expect(try APIErrorBody.decode(json(response), at: .root).param == AgentStreamClose.historyLostParameter)
        let twice = await harness.send(
            "GET", "/agent/stream?after=c-000000004&historyLost=close&historyLost=close",
            headers: AppHarness.upgradeHeaders)
        #expect(twice.status == 400)
    }

    /// A cursor beyond the newest message names a history the server no longer has (it
    /// restarted without it, or was restored from an older copy): to a client that asks for it
    /// the stream says so with 4410 at once instead of holding back every message up to that
    /// cursor, the largest cursor included.
    @Test(arguments: ["c-000000004", "c-9223372036854775807"])
    func aStreamFromBeyondTheNewestMessageIsClosedAsALostHistory(after: String) async throws {
        let harness = try await roomWithOneTurn()
        let probe = try await harness.openStream(
            "/agent/stream?after=\(after)&\(AgentStreamClose.historyLostParameter)=\(AgentStreamClose.historyLostOptIn)"
        )
        var frames = probe.frames.makeAsyncIterator()
        let (close, seen) = await probe.next(&frames) { frame -> AgentStreamProbe.Frame? in
            if case .close = frame { frame } else { nil }
        }
        #expect(close == .close(code: AgentStreamClose.historyLost, reason: "cursor beyond history"))
        #expect(seen.count == 1, "nothing before the close: \(seen)")
        #expect(await frames.next() == nil, "the session ended")
    }
}
