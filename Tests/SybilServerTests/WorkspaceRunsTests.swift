import Foundation
import SybilCore
import SybilHTTP
import SybilWire
import Synchronization
import Testing

@testable import SybilServer

/// Queued turns, stops, desktops going offline and back, and event replay by
/// `Last-Event-ID`: every staleness trigger a client reacts to can happen on this server.
@Suite("Reference server: workspace runs and events", .timeLimit(.minutes(2)))
struct WorkspaceRunsTests {
    private let chat = AppHarness.chatParams
    private static let eventsPath = "/v1/workspaces/events?desktopId=desk-1&projectId=proj-app&sessionId=sess-42"
    private static let ciEventsPath = "/v1/workspaces/events?desktopId=desk-2&projectId=proj-ci&sessionId=sess-60"

    private func submit(_ harness: AppHarness, operation: String, text: String = "Fix it please.") async throws
        -> JSONValue?
    {
        try json(
            await harness.rpc(
                "run.codexChatSubmit",
                #"{\#(chat), "operationId": "\#(operation)", "mutationId": "m1", "mode": "send", "text": "\#(text)"}"#,
                callKey: "run.codexChatSubmit:\(operation):m1"))["result"]["receipt"]
    }

    private func stop(_ harness: AppHarness, _ runId: String, callKey: String? = nil) async -> HTTPServerResponse {
        await harness.rpc(
            "run.codexChatStop", #"{\#(chat), "runId": "\#(runId)"}"#, callKey: callKey ?? "run.codexChatStop:\(runId)")
    }

    private func load(_ harness: AppHarness) async throws -> WorkspaceChatLoadEnvelope {
        let response = await harness.rpc("run.codexChatLoad", "{\(chat), \"limit\": 200}")
        return try WorkspaceChatLoadEnvelope.decode(json(response)["result"] ?? .null, at: .root)
    }

    /// Advances the clock a pace at a time (each time a run sleeps) until `condition` holds.
    private func advance(
        _ harness: AppHarness, pace: Duration, until condition: () async throws -> Bool,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        try await harness.drive(step: pace, until: condition, sourceLocation: sourceLocation)
    }

    /// Starts collecting a chat's event stream until `stop` holds for its text.
    private func events(
        _ harness: AppHarness, path: String = eventsPath, lastEventID: String? = nil,
        until stop: @escaping @Sendable (String) -> Bool
    ) async -> Task<[ServerSentEvent], Never> {
        let response = await harness.send(
            "GET", path, headers: lastEventID.map { [("Last-Event-ID", $0)] } ?? [])
        return Task {
            SybilServerTests.events(await collect(response) { stop(String(decoding: $0, as: UTF8.self)) })
        }
    }

    @Test func aSendDuringARunIsQueuedAndStartsWhenTheRunEnds() async throws {
        let pace = Duration.milliseconds(40)
        let harness = try AppHarness { $0.pace = pace }
        let first = try await submit(harness, operation: "op-1", text: "First.")
        let queued = try await submit(harness, operation: "op-2", text: "Second.")
        #expect(first["status"].string == "accepted")
        #expect(queued["status"].string == "accepted")
        let second = try #require(queued["runId"].string)
        #expect(second != first["runId"].string)
        let waiting = try await load(harness)
        #expect(waiting.activeRun?.runId == first["runId"].string)
        #expect(waiting.liveOverlay.blocks.filter { $0.runId == second }.map(\.identity) == [.operation("op-2")])
        try await advance(harness, pace: pace) {
            let state = try await load(harness)
            return state.activeRun == nil && state.timeline.last?.type == .agentReply
                && state.timeline.contains { $0.text == "Second." }
        }
        let settled = try await load(harness).timeline.suffix(8)
        let turn = ["user", "thinking", "activity", "agent-reply"]
        #expect(settled.filter { $0.type == .user }.map(\.text) == ["First.", "Second."])
        #expect(settled.map(\.type.rawValue) == turn + turn)
    }

    @Test func theQueuedRunIsAnnouncedQueuedThenStarted() async throws {
        let harness = try AppHarness { $0.pace = .milliseconds(40) }
        let collecting = await events(harness) {
            $0.contains(#""runId":"run-2","state":"started""#)
        }
        _ = try await submit(harness, operation: "op-1")
        _ = try await submit(harness, operation: "op-2")
        #expect(try json(await stop(harness, "run-1"))["result"]["state"].string == "stopped")
        let runs = await collecting.value.filter { $0.type == "run" }.map(\.data)
        #expect(
            runs == [
                #"{"runId":"run-1","state":"started"}"#, #"{"runId":"run-2","state":"queued"}"#,
                #"{"runId":"run-1","state":"stopped"}"#, #"{"runId":"run-2","state":"started"}"#,
            ])
    }

    @Test func stoppingTheRunningRunKeepsItsPartialReply() async throws {
        let pace = Duration.milliseconds(40)
        let harness = try AppHarness { $0.pace = pace }
        let runId = try #require(try await submit(harness, operation: "op-1")["runId"].string)
        try await advance(harness, pace: pace) {
            try await load(harness).liveOverlay.blocks.contains { $0.type == .agentReply }
        }
        #expect(await harness.clock.waitForSleepers(count: 1))  // the run waits for its next token
        let partial = try #require(try await load(harness).liveOverlay.blocks.first { $0.type == .agentReply }?.text)
        let stopped = try json(await stop(harness, runId))
        #expect(stopped == ["result": ["runId": .string(runId), "state": "stopped"]])
        let after = try await load(harness)
        #expect(after.activeRun == nil)
        #expect(after.liveOverlay.blocks.isEmpty)
        #expect(after.timeline.suffix(4).map(\.type.rawValue) == ["user", "thinking", "activity", "agent-reply"])
        #expect(after.timeline.last?.text == partial)
        #expect(try json(await stop(harness, runId)) == stopped)  // the same key answers the same
        #expect(await stop(harness, runId, callKey: "run.codexChatStop:run-9").status == 400)
        let unknown = await stop(harness, "run-9")
        #expect(unknown.status == 404)
    }

    @Test func stoppingAQueuedRunCancelsItAndKeepsTheUsersRow() async throws {
        let pace = Duration.milliseconds(40)
        let harness = try AppHarness { $0.pace = pace }
        let running = try #require(try await submit(harness, operation: "op-1")["runId"].string)
        let queued = try #require(try await submit(harness, operation: "op-2", text: "Later.")["runId"].string)
        #expect(try json(await stop(harness, queued))["result"]["state"].string == "cancelled")
        let state = try await load(harness)
        #expect(state.activeRun?.runId == running)
        #expect(!state.liveOverlay.blocks.contains { $0.runId == queued })
        #expect(state.timeline.last?.text == "Later.")
        try await advance(harness, pace: pace) { try await load(harness).activeRun == nil }
        #expect(try json(await stop(harness, running))["result"]["state"].string == "finished")
        // The cancelled run never started: one reply after it, the running run's.
        let tail = try await load(harness).timeline.suffix(5)
        #expect(tail.map(\.type.rawValue) == ["user", "user", "thinking", "activity", "agent-reply"])
    }

    @Test func setOnlineExistsOnlyWithTheDebugOption() async throws {
        let plain = try AppHarness()
        let refused = await plain.rpc("desktop.setOnline", #"{"desktopId": "desk-2", "online": true}"#)
        #expect(refused.status == 404)
        #expect(try APIErrorBody.decode(json(refused), at: .root).param == "method")
    }

    @Test func aDesktopGoingOnlineAndOfflineIsAnEventAndChangesItsAnswers() async throws {
        let harness = try AppHarness { $0.debugDesktops = true }
        let collecting = await events(harness, path: Self.ciEventsPath) {
            $0.components(separatedBy: "event: desktop").count == 3
        }
        #expect(await harness.rpc("projects.list", #"{"desktopId": "desk-2"}"#).status == 503)
        let back = try json(await harness.rpc("desktop.setOnline", #"{"desktopId": "desk-2", "online": true}"#))
        #expect(back == ["result": ["desktopId": "desk-2", "online": true]])
        #expect(await harness.rpc("projects.list", #"{"desktopId": "desk-2"}"#).status == 200)
        let listed = try json(await harness.rpc("desktops.list", "{}"))["result"]["desktops"][1]["online"]
        #expect(listed == .bool(true))
        _ = await harness.rpc("desktop.setOnline", #"{"desktopId": "desk-2", "online": false}"#)
        #expect(await harness.rpc("projects.list", #"{"desktopId": "desk-2"}"#).status == 503)
        let desktopEvents = await collecting.value.filter { $0.type == "desktop" }.map(\.data)
        #expect(
            desktopEvents == [#"{"desktopId":"desk-2","online":true}"#, #"{"desktopId":"desk-2","online":false}"#])
        let bad = await harness.rpc("desktop.setOnline", #"{"desktopId": "desk-9", "online": true}"#)
        #expect(bad.status == 404)
        let keyed = await harness.rpc(
            "desktop.setOnline", #"{"desktopId": "desk-2", "online": true}"#, callKey: "desktop.setOnline:1")
        #expect(keyed.status == 400)
    }

    @Test func aReconnectWithLastEventIDGetsEveryLaterEventOnceThenLiveOnes() async throws {
        let pace = Duration.milliseconds(40)
        let harness = try AppHarness { $0.pace = pace }
        let done: @Sendable (String) -> Bool = { $0.contains(#""state":"finished""#) && $0.contains("event: session") }
        let whole = await events(harness, until: done)
        _ = try await submit(harness, operation: "op-1")
        // A client that saw the turn up to its thinking drops off mid-run, then reconnects.
        let early = await events(harness) { $0.contains(#""type":"thinking""#) }
        try await advance(harness, pace: pace) {
            try await load(harness).liveOverlay.blocks.contains { $0.type == .activity }
        }
        let seen = try #require(await early.value.first { $0.data.contains(#""type":"thinking""#) }?.lastEventId)
        let resumed = await events(harness, lastEventID: seen, until: done)
        try await advance(harness, pace: pace) { try await load(harness).activeRun == nil }
        let all = await whole.value
        let replayed = await resumed.value
        let index = try #require(all.firstIndex { $0.lastEventId == seen })
        let expected = all[(index + 1)...]
        #expect(expected.count > 3)
        #expect(replayed.map(\.lastEventId) == expected.map(\.lastEventId))
        #expect(replayed.map(\.type) == expected.map(\.type))
        #expect(replayed.map(\.data) == expected.map(\.data))
        #expect(replayed.first?.data.contains(#""type":"activity""#) == true)  // replayed, not live
    }

    @Test(
        "an unknown Last-Event-ID gets a reset, then the overlay",
        arguments: ["garbage", "1.1", "\(Int64.max).1", String(repeating: "9", count: 200) + ".1", "..", "1.2.3"])
    func unknownLastEventID(_ id: String) async throws {
        let harness = try AppHarness()
        let received = await events(harness, lastEventID: id) { $0.contains("event: overlay") }.value
        #expect(received.map(\.type) == ["reset", "overlay"])
        let reason = try JSONReader().parse(received[0].data)["reason"].string
        #expect(reason?.isEmpty == false)
        _ = try LiveOverlay.decode(JSONReader().parse(received[1].dataBytes), at: .root)
    }

    @Test func anIDOlderThanTheRingGetsAReset() async throws {
        let harness = try AppHarness { $0.debugDesktops = true }
        let first = await events(harness, path: Self.ciEventsPath) { $0.contains("event: overlay") }.value
        let oldest = try #require(first.first?.lastEventId)
        for index in 0...WorkspaceDesktopService.eventRingCapacity {
            _ = await harness.rpc("desktop.setOnline", #"{"desktopId": "desk-2", "online": \#(index % 2 == 0)}"#)
        }
        let received = await events(harness, path: Self.ciEventsPath, lastEventID: oldest) {
            $0.contains("event: overlay")
        }.value
        #expect(received.map(\.type) == ["reset", "overlay"])
        // One id newer is still in the ring: everything after it replays.
        let replay = await events(harness, path: Self.ciEventsPath, lastEventID: nextID(oldest, by: 1)) {
            $0.components(separatedBy: "event: desktop").count == WorkspaceDesktopService.eventRingCapacity + 1
        }.value
        #expect(replay.count == WorkspaceDesktopService.eventRingCapacity)
        #expect(replay.allSatisfy { $0.type == "desktop" })
    }

    private func nextID(_ id: String, by step: Int64) -> String {
        let parts = id.split(separator: ".")
        return "\(parts[0]).\(Int64(parts[1])! + step)"
    }
}
