import Foundation
import SybilCore
import SybilHTTP
import SybilNet
import SybilTesting
import SybilWire
import Testing

@testable import SybilServer

/// The desktop's runs, stops, desktop switches and event replay over real sockets, and an
/// accepted message surviving a server killed mid-run.
@Suite("Reference server: workspace runs over sockets", .timeLimit(.minutes(2)))
struct WorkspaceLiveTests {
    private static let token = "live-token"
    private static let chat = AppHarness.chatParams

    private func start(_ configure: (inout SybilServerOptions) -> Void = { _ in }) throws -> ReferenceServer {
        var options = SybilServerOptions(token: Self.token)
        // The clock is never advanced: a run stays where it is until it is stopped.
        options.pace = .milliseconds(40)
        configure(&options)
        return try ReferenceServer(options: options, time: ServerTime(clock: ManualClock()) { AppHarness.epochBase })
    }

    private func rpc(_ server: ReferenceServer, _ method: String, _ params: String, callKey: String? = nil)
        async throws -> (status: Int, body: JSONValue)
    {
        let key = callKey.map { JSONWriter.quoted($0) } ?? "null"
        let request = HTTPRequest(
            method: "POST", url: APIEndpoint.url(base: server.baseURL, path: "v1/workspaces/rpc"),
            headers: HTTPHeaders([("Authorization", "Bearer \(Self.token)"), ("Content-Type", "application/json")]),
            body: Array("{\"method\": \"\(method)\", \"callKey\": \(key), \"params\": \(params)}".utf8),
            timeout: .seconds(30))
        let response = try await DefaultHTTPClient.make().send(request)
        return (response.head.status, try JSONReader().parse(await response.collect()))
    }

    private func submit(_ server: ReferenceServer, operation: String, text: String) async throws -> JSONValue? {
        try await rpc(
            server, "run.codexChatSubmit",
            #"{\#(Self.chat), "operationId": "\#(operation)", "mutationId": "m1", "mode": "send", "text": "\#(text)"}"#,
            callKey: "run.codexChatSubmit:\(operation):m1"
        ).body["result"]
    }

    private func load(_ server: ReferenceServer) async throws -> WorkspaceChatLoadEnvelope {
        let answer = try await rpc(server, "run.codexChatLoad", "{\(Self.chat), \"limit\": 200}")
        return try WorkspaceChatLoadEnvelope.decode(answer.body["result"] ?? .null, at: .root)
    }

    /// A chat's event stream over a socket, read event by event.
    private struct Events {
        var bytes: AsyncThrowingStream<[UInt8], any Error>.AsyncIterator
        var parser = EventStreamParser()
        var received: [ServerSentEvent] = []

        /// Reads until `stop` holds for the events so far; returns them.
        mutating func read(until stop: ([ServerSentEvent]) -> Bool) async throws -> [ServerSentEvent] {
            while !stop(received), let chunk = try await bytes.next() { received += try parser.feed(chunk) }
            return received
        }
    }

    private func events(
        _ server: ReferenceServer, session: String = "desk-1/proj-app/sess-42", lastEventID: String? = nil
    )
        async throws -> Events
    {
        let ids = session.split(separator: "/").map(String.init)
        var headers = HTTPHeaders([("Authorization", "Bearer \(Self.token)")])
        if let lastEventID { headers.set("Last-Event-ID", lastEventID) }
        let request = HTTPRequest(
            method: "GET",
            url: APIEndpoint.url(
                base: server.baseURL, path: "v1/workspaces/events",
                query: [("desktopId", ids[0]), ("projectId", ids[1]), ("sessionId", ids[2])]),
            headers: headers, body: nil, timeout: .seconds(30))
        let response = try await DefaultHTTPClient.make().send(request)
        #expect(response.head.status == 200)
        return Events(bytes: response.body.makeAsyncIterator())
    }

    @Test func anAcceptedMessageSurvivesAServerStoppedMidRun() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "sybil-serve-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let first = try start { $0.storage = .directory(directory.path) }
        let receipt = try await submit(first, operation: "op-1", text: "Remember me.")
        #expect(receipt["receipt"]["status"].string == "accepted")
        #expect(try await load(first).activeRun != nil)
        await first.shutdown(grace: .zero)  // the run never ends on this server
        let second = try start { $0.storage = .directory(directory.path) }
        let after = try await load(second)
        #expect(after.activeRun == nil)
        #expect(after.liveOverlay.blocks.isEmpty)
        #expect(after.timeline.last?.type == .user)
        #expect(after.timeline.last?.text == "Remember me.")
        #expect(after.timeline.last?.origin == .canonical)
        // A retry with the same key answers the same receipt and stores nothing twice.
        #expect(try await submit(second, operation: "op-1", text: "Remember me.") == receipt)
        #expect(try await load(second).timeline.count == after.timeline.count)
        let sessions = try await rpc(second, "sessions.list", #"{"desktopId": "desk-1", "projectId": "proj-app"}"#)
        let updatedAt = sessions.body["result"]["sessions"].array?.first { $0["sessionId"].string == "sess-42" }?[
            "updatedAt"]
        #expect(updatedAt.int == after.timeline.last?.timestamp)
        // Run ids go on from the earlier start's.
        let next = try await submit(second, operation: "op-2", text: "Next.")
        #expect(next["receipt"]["runId"].string != receipt["receipt"]["runId"].string)
        await second.shutdown(grace: .zero)
    }

    @Test func aQueuedRunIsCancelledAndTheRunningOneStoppedOverSockets() async throws {
        let server = try start()
        var stream = try await events(server)
        let running = try #require(
            try await submit(server, operation: "op-1", text: "First.")["receipt"]["runId"].string)
        let queued = try #require(
            try await submit(server, operation: "op-2", text: "Second.")["receipt"]["runId"].string)
        let cancelled = try await rpc(
            server, "run.codexChatStop", #"{\#(Self.chat), "runId": "\#(queued)"}"#,
            callKey: "run.codexChatStop:\(queued)")
        #expect(cancelled.body == ["result": ["runId": .string(queued), "state": "cancelled"]])
        let stopped = try await rpc(
            server, "run.codexChatStop", #"{\#(Self.chat), "runId": "\#(running)"}"#,
            callKey: "run.codexChatStop:\(running)")
        #expect(stopped.body["result"]["state"].string == "stopped")
        let received = try await stream.read { $0.filter { $0.type == "run" }.count == 4 }
        #expect(
            received.filter { $0.type == "run" }.map(\.data) == [
                #"{"runId":"\#(running)","state":"started"}"#, #"{"runId":"\#(queued)","state":"queued"}"#,
                #"{"runId":"\#(queued)","state":"cancelled"}"#, #"{"runId":"\#(running)","state":"stopped"}"#,
            ])
        let users = try await load(server).timeline.suffix(2).map(\.text)
        #expect(users == ["Second.", "First."])  // the cancelled one settled first; nothing is lost
        await server.shutdown(grace: .zero)
    }

    @Test func aDesktopComesOnlineAndAReconnectReplaysWhatItMissed() async throws {
        let plain = try start()
        let refused = try await rpc(plain, "desktop.setOnline", #"{"desktopId": "desk-2", "online": true}"#)
        #expect(refused.status == 404)
        await plain.shutdown(grace: .zero)

        let server = try start { $0.debugDesktops = true }
        var first = try await events(server, session: "desk-2/proj-ci/sess-60")
        let overlayID = try #require(try await first.read { !$0.isEmpty }.first?.lastEventId)
        #expect(try await rpc(server, "projects.list", #"{"desktopId": "desk-2"}"#).status == 503)
        _ = try await rpc(server, "desktop.setOnline", #"{"desktopId": "desk-2", "online": true}"#)
        #expect(try await rpc(server, "projects.list", #"{"desktopId": "desk-2"}"#).status == 200)
        _ = try await rpc(server, "desktop.setOnline", #"{"desktopId": "desk-2", "online": false}"#)
        let live = try await first.read { $0.filter { $0.type == "desktop" }.count == 2 }.dropFirst()
        // A client that only saw the overlay reconnects: both changes replay, in order, once.
        var second = try await events(server, session: "desk-2/proj-ci/sess-60", lastEventID: overlayID)
        let replayed = try await second.read { $0.count == 2 }
        #expect(replayed.map(\.lastEventId) == live.map(\.lastEventId))
        #expect(
            replayed.map(\.data) == [
                #"{"desktopId":"desk-2","online":true}"#, #"{"desktopId":"desk-2","online":false}"#,
            ])
        // One from another start is reset, then brought up to date by the overlay.
        var foreign = try await events(server, session: "desk-2/proj-ci/sess-60", lastEventID: "1.1")
        #expect(try await foreign.read { $0.count == 2 }.map(\.type) == ["reset", "overlay"])
        await server.shutdown(grace: .zero)
    }
}
