import Foundation
import SybilClient
import SybilCore
import SybilHTTP
import SybilNet
import SybilServer
import SybilTesting
import SybilWire
import Testing

/// The Agent room against a reference server that restarts in memory and so loses the history
/// the room merged, over real sockets: the room's last merged cursor is past anything the new
/// server has. Reconnect waits run on a manual clock the test advances.
@MainActor
@Suite("Agent room after its server lost the history", .timeLimit(.minutes(2)))
struct AgentRoomHistoryLossEndToEndTests {
    /// A loopback address only this suite binds, so the port a restarting server gives up is
    /// never handed to another test's server.
    private static let loopback = "127.0.0.79"

    private func startServer(port: Int = 0) throws -> ReferenceServer {
        var options = SybilServerOptions(token: endToEndToken)
        options.pace = .zero
        options.messagesPerMinute = 100_000
        options.storage = .inMemory
        return try ReferenceServer(
            options: options, configuration: HTTPServer.Configuration(host: Self.loopback, port: port),
            time: ServerTime(clock: ManualClock()) { 1_800_000_000_000 })
    }

    /// The server again on `port`, empty. The kernel may briefly hold the port it just freed,
    /// so binding is retried for up to 5 s.
    private func restartServer(port: Int) async throws -> ReferenceServer {
        var attempt = 0
        while true {
            do {
                return try startServer(port: port)
            } catch  where attempt < 100 {
                attempt += 1
                // Waits for the operating system to free a port (not a rule under test).
                try await ContinuousClock().sleep(for: .milliseconds(50))
            }
        }
    }

    private func client(_ base: String) throws -> AgentRoomHTTPClient {
        AgentRoomHTTPClient(
            base: try AgentAPIBase(string: base), http: DefaultHTTPClient.make(redirects: .deliver),
            tokens: endToEndTokens(), random: SeededRandomSource(seed: 12))
    }

    private func say(_ text: String, to api: any AgentRoomAPI, id: String) async throws {
        _ = try await api.submit(AgentRoomSubmission(requestId: id, text: text, createdAt: 1_800_000_000_000))
    }

    /// Waits until `condition` holds, moving the manual clock past every reconnect wait the
    /// room announces meanwhile.
    private func waitReconnecting(
        _ what: String, _ model: AgentRoomModel, clock: ManualClock,
        sourceLocation: SourceLocation = #_sourceLocation, _ condition: @escaping @MainActor () -> Bool
    ) async {
        for _ in 0..<6 {
            var waiting: Duration?
            let settled = await ConditionWait.until(limit: .seconds(20)) {
                if condition() { return true }
                if case .reconnecting(_, let retryIn) = model.connection {
                    waiting = retryIn
                    return true
                }
                return false
            }
            guard settled else { break }
            if condition() { return }
            if let waiting {
                let opened = model.connectionsOpened
                let handled = model.updatesHandled
                clock.advance(by: waiting)
                // The next attempt's outcome (opened, or another drop) is an update.
                _ = await ConditionWait.until(limit: .seconds(20)) {
                    condition() || model.updatesHandled > handled || model.connectionsOpened > opened
                }
            }
        }
        if !condition() { Issue.record("gave up waiting for \(what)", sourceLocation: sourceLocation) }
    }

    @Test func aServerThatRestartedEmptyIsFollowedAfreshWithoutStaleRowsOrDuplicates() async throws {
        let first = try startServer()
        let base = first.baseURL.absoluteString
        let port = try #require(first.baseURL.port)
        let clock = ManualClock()
        let connector = RecordingStreamConnector(clock: clock)
        let model = AgentRoomModel(
            base: try AgentAPIBase(string: base), tokens: endToEndTokens(),
            http: DefaultHTTPClient.make(redirects: .deliver), connector: connector, clock: clock,
            random: SeededRandomSource(seed: 11), timeZone: TimeZone(secondsFromGMT: 0)!)
        await model.start()
        await waitUntil("the stream") { model.connection == .connected }
        try await say("one", to: model.api, id: "req-1")
        try await say("two", to: model.api, id: "req-2")
        await waitUntil("both exchanges") { model.history.messages.count == 6 }
        #expect(model.history.lastMergedCursor?.rawValue == "c-000000006")

        // The server restarts in memory: everything the room merged is gone there.
        await first.shutdown()
        await waitUntil("the drop") {
            if case .reconnecting = model.connection { true } else { false }
        }
        let second = try await restartServer(port: port)
        // Someone talks to the new server before the room is back: its cursors start again
        // from the beginning, below the room's last merged cursor.
        try await say("three", to: try client(base), id: "req-3")

        await waitReconnecting("the new server's history", model, clock: clock) {
            model.history.messages.contains { $0.text == "three" } && model.connection == .connected
        }
        let server = try await client(base).messages(after: nil, before: nil, limit: 200).messages
        #expect(server.count == 3)
        #expect(model.history.messages == server, "the new server's history, none of the lost one")
        #expect(model.rows.compactMap(\.message).map(\.text).first == "three")
        #expect(!model.rows.compactMap(\.message).contains { $0.text == "one" || $0.text == "two" })
        #expect(model.roomError?.contains("no longer has") == true, "the room says why the history changed")

        // Live messages of the new server arrive as usual, each once.
        try await say("four", to: model.api, id: "req-4")
        await waitUntil("the live exchange") { model.history.messages.count == 6 }
        let ids = model.rows.compactMap(\.message).map(\.messageId)
        #expect(Set(ids).count == ids.count, "no duplicates")
        #expect(model.history.messages.map(\.cursor) == (1...6).map { AgentCursor("c-00000000\($0)")! })
        #expect(
            connector.afters == [nil, "c-000000006", "c-000000003"],
            "refused once with 4410, then replayed from the new server's newest page")
        await model.stop()
        await second.shutdown()
    }
}
