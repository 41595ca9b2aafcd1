import Foundation
import SybilCore
import SybilHTTP
import SybilWire
import Testing

@testable import SybilServer

@Suite("Reference server: workspace desktop", .timeLimit(.minutes(2)))
struct WorkspaceRoutesTests {
    let chat = AppHarness.chatParams

    func submit(
        _ harness: AppHarness, operation: String, mutation: String = "m1", mode: String = "send",
        activeRunId: String? = nil, text: String = "Fix it please."
    ) async -> HTTPServerResponse {
        let run = activeRunId.map { ", \"activeRunId\": \"\($0)\"" } ?? ""
        return await harness.rpc(
            "run.codexChatSubmit",
            #"{\#(chat), "operationId": "\#(operation)", "mutationId": "\#(mutation)", "mode": "\#(mode)"\#(run), "text": "\#(text)", "attachments": []}"#,
            callKey: "run.codexChatSubmit:\(operation):\(mutation)")
    }

    func load(_ harness: AppHarness, limit: Int? = nil) async throws -> WorkspaceChatLoadEnvelope {
        let extra = limit.map { ", \"limit\": \($0)" } ?? ""
        let response = await harness.rpc("run.codexChatLoad", "{\(chat)\(extra)}")
        #expect(response.status == 200)
        return try WorkspaceChatLoadEnvelope.decode(json(response)["result"] ?? .null, at: .root)
    }

    private func isRunning(_ harness: AppHarness) async throws -> Bool {
        let sessions = try json(
            await harness.rpc("sessions.list", #"{"desktopId": "desk-1", "projectId": "proj-app"}"#))
        return sessions["result"]["sessions"].array?.first { $0["sessionId"].string == "sess-42" }?["running"]
            == .bool(true)
    }

    /// Advances the clock a pace at a time until the run has settled.
    private func finishRun(_ harness: AppHarness, pace: Duration) async throws {
        try await harness.drive(step: pace) { try await !isRunning(harness) }
    }

    @Test func desktopsProjectsAndSessionsNewestFirst() async throws {
        let harness = try AppHarness()
        let desktops = try json(await harness.rpc("desktops.list", "{}"))["result"]["desktops"].array ?? []
        #expect(desktops.map { $0["desktopId"].string } == ["desk-1", "desk-2"])
        let projects = try json(await harness.rpc("projects.list", #"{"desktopId": "desk-1"}"#))
        #expect(projects["result"]["projects"][0]["folder"].string == "/Users/ana/src/app")
        let sessions =
            try json(
                await harness.rpc("sessions.list", #"{"desktopId": "desk-1", "projectId": "proj-app"}"#)
            )["result"]["sessions"].array ?? []
        let stamps = sessions.compactMap { $0["updatedAt"].int }
        #expect(stamps == stamps.sorted(by: >))
        #expect(sessions.count == 2)
        let offline = await harness.rpc("projects.list", #"{"desktopId": "desk-2"}"#)
        #expect(offline.status == 503)
        #expect(offline.headers["Retry-After"] == "30")
    }

    @Test(
        "bad calls name the problem",
        arguments: [
            ("run.codexChatLoad", #"{"desktopId": "desk-1", "projectId": "proj-app", "sessionId": "nope"}"#, 404, nil),
            (
                "run.codexChatLoad",
                #"{"desktopId": "desk-1", "projectId": "proj-app", "sessionId": "sess-42", "bogus": 1}"#, 400,
                "params.bogus"
            ),
            ("run.codexChatLoad", #"{"desktopId": "desk-1", "projectId": "proj-app"}"#, 400, "params.sessionId"),
            (
                "run.codexChatLoad", #"{"desktopId": "desk-9", "projectId": "proj-app", "sessionId": "sess-42"}"#, 404,
                nil
            ),
            ("run.nothing", "{}", 404, "method"),
            ("desktops.list", "[]", 400, "params"),
        ] as [(String, String, Int, String?)])
    func badCalls(method: String, params: String, status: Int, param: String?) async throws {
        let harness = try AppHarness()
        let response = await harness.rpc(method, params)
        #expect(response.status == status)
        if let param { #expect(try APIErrorBody.decode(json(response), at: .root).param == param) }
    }

    @Test func loadIsAnExactEnvelopeAndOlderPagesReachTheStartWithoutOverlap() async throws {
        let harness = try AppHarness()
        let envelope = try await load(harness)
        #expect(envelope.timeline.count == 50)
        #expect(envelope.loadedEntries == 50)
        #expect(envelope.hasOlderEntries)
        #expect(envelope.activeRun == nil)
        var ids = envelope.timeline.map(\.id)
        var cursor = envelope.oldestCursor
        while let next = cursor {
            let response = await harness.rpc(
                "run.codexChatLoadPageBefore", #"{\#(chat), "cursor": "\#(next)", "limit": 200}"#)
            let page = try WorkspaceChatPage.decode(
                json: Array(JSONWriter().bytes(from: json(response)["result"] ?? .null)), kind: .olderPage)
            ids = page.timeline.map(\.id) + ids
            cursor = page.hasOlderEntries ? page.oldestCursor : nil
        }
        #expect(ids.count == 160)  // 40 seeded turns of four rows
        #expect(Set(ids).count == ids.count)
        for (limit, status) in [(0, 400), (1, 200), (200, 200), (201, 400)] {
            let response = await harness.rpc("run.codexChatLoad", "{\(chat), \"limit\": \(limit)}")
            #expect(response.status == status, "limit \(limit)")
        }
    }

    @Test func subagentThreadsLoadAndPage() async throws {
        let harness = try AppHarness()
        let response = await harness.rpc("run.codexChatLoadThread", #"{\#(chat), "threadId": "thr-7", "limit": 40}"#)
        let page = try WorkspaceChatPage.decode(
            json: JSONWriter().bytes(from: json(response)["result"] ?? .null), kind: .threadPage)
        #expect(page.threadId == "thr-7")
        #expect(page.timeline.count == 40)
        let cursor = try #require(page.oldestCursor)
        #expect(cursor.hasPrefix("thr-7:cur-"))
        let older = await harness.rpc(
            "run.codexChatLoadThreadPageBefore", #"{\#(chat), "threadId": "thr-7", "cursor": "\#(cursor)"}"#)
        let olderPage = try WorkspaceChatPage.decode(
            json: JSONWriter().bytes(from: json(older)["result"] ?? .null), kind: .threadPage)
        #expect(olderPage.timeline.count == 20)
        #expect(!olderPage.hasOlderEntries)
        let missing = await harness.rpc("run.codexChatLoadThread", #"{\#(chat), "threadId": "thr-0"}"#)
        #expect(missing.status == 404)
    }

    @Test func submitRunsATurnThatSettlesIntoHistoryWithANewEpoch() async throws {
        let harness = try AppHarness()
        let before = try await load(harness, limit: 200)
        let receipt = try json(await submit(harness, operation: "op-1"))["result"]["receipt"]
        #expect(receipt["status"].string == "accepted")
        let runId = try #require(receipt["runId"].string)
        try await finishRun(harness, pace: .zero)
        let after = try await load(harness, limit: 200)
        #expect(after.liveOverlay.settlementEpoch == before.liveOverlay.settlementEpoch + 1)
        #expect(after.liveOverlay.revision == 0)
        #expect(after.liveOverlay.blocks.isEmpty)
        #expect(after.activeRun == nil)
        let added = after.timeline.suffix(4).map(\.type.rawValue)
        #expect(added == ["user", "thinking", "activity", "agent-reply"])
        #expect(after.timeline.suffix(4).first?.text == "Fix it please.")
        // The same call again answers the same receipt and runs nothing.
        let again = try json(await submit(harness, operation: "op-1"))["result"]["receipt"]
        #expect(again["runId"].string == runId)
        #expect(try await load(harness, limit: 200).timeline.count == after.timeline.count)
        let conflict = await submit(harness, operation: "op-1", text: "Different")
        #expect(conflict.status == 409)
    }

    @Test func aSteerIntoTheRunningTurnIsAcceptedAndOneAfterItIsRejected() async throws {
        let pace = Duration.milliseconds(40)
        let harness = try AppHarness { $0.pace = pace }
        let runId = try #require(
            try json(await submit(harness, operation: "op-1"))["result"]["receipt"]["runId"].string)
        let running = try await load(harness)
        #expect(running.activeRun?.runId == runId)
        #expect(running.liveOverlay.blocks.map(\.identity) == [.operation("op-1")])
        let steer = try json(
            await submit(harness, operation: "op-3", mode: "steer", activeRunId: runId, text: "Also the tests."))
        #expect(steer["result"]["receipt"]["status"].string == "accepted")
        try await finishRun(harness, pace: pace)
        let late = try json(await submit(harness, operation: "op-4", mode: "steer", activeRunId: runId))
        #expect(late["result"]["receipt"]["status"].string == "rejected")
        #expect(late["result"]["receipt"]["reason"].string?.contains("send it as a new message") == true)
        let settled = try await load(harness).timeline.suffix(5)
        // History keeps the order the overlay showed: the steer after the turn's rows so far.
        #expect(settled.map(\.type.rawValue) == ["user", "thinking", "activity", "agent-reply", "user"])
        #expect(settled.filter { $0.type == .user }.map(\.text) == ["Fix it please.", "Also the tests."])
    }

    @Test func askingForASubagentSettlesAReplyWithItsThread() async throws {
        let harness = try AppHarness()
        _ = await submit(harness, operation: "op-1", text: "Use a subagent to check the keychain.")
        try await finishRun(harness, pace: .zero)
        let reply = try #require(try await load(harness).timeline.last)
        #expect(reply.type == .agentReply)
        let threadId = try #require(reply.subagentThreadId)
        let response = await harness.rpc("run.codexChatLoadThread", #"{\#(chat), "threadId": "\#(threadId)"}"#)
        let page = try WorkspaceChatPage.decode(
            json: JSONWriter().bytes(from: json(response)["result"] ?? .null), kind: .threadPage)
        #expect(
            page.timeline.map(\.text)
                == ScriptedAgent(seed: 1).reply(to: "Use a subagent to check the keychain.").subagent)
    }

    @Test func aRetryRacingItsFirstAttemptRunsTheTurnOnce() async throws {
        let harness = try AppHarness()
        let before = try await load(harness, limit: 200).timeline.count
        async let first = submit(harness, operation: "op-1")
        async let second = submit(harness, operation: "op-1")
        let receipts = try await [json(first), json(second)].map { $0["result"]["receipt"] }
        #expect(receipts[0] == receipts[1])
        #expect(receipts[0]["status"].string == "accepted")
        try await finishRun(harness, pace: .zero)
        #expect(try await load(harness, limit: 200).timeline.count == before + 4)
    }

    @Test func callKeyMustMatchTheOperation() async throws {
        let harness = try AppHarness()
        let response = await harness.rpc(
            "run.codexChatSubmit",
            #"{\#(chat), "operationId": "op-1", "mutationId": "m1", "mode": "send", "text": "x"}"#,
            callKey: "run.codexChatSubmit:op-1:m2")
        #expect(response.status == 400)
        #expect(try APIErrorBody.decode(json(response), at: .root).param == "callKey")
    }

    @Test func eventsStreamOverlaysOfTheRunThenItsSettlement() async throws {
        let harness = try AppHarness()
        let stream = await harness.send(
            "GET", "/v1/workspaces/events?desktopId=desk-1&projectId=proj-app&sessionId=sess-42")
        #expect(stream.headers["Content-Type"] == "text/event-stream")
        let collecting = Task {
            await collect(stream) { bytes in
                String(decoding: bytes, as: UTF8.self).contains("\"state\":\"finished\"")
                    && String(decoding: bytes, as: UTF8.self).contains("event: session")
            }
        }
        _ = await submit(harness, operation: "op-1")  // the stream subscribed when it was answered
        let received = events(await collecting.value)
        // The first overlay and the new epoch's come whole, the running ones as deltas.
        #expect(received.filter { $0.type.hasPrefix("overlay") }.map(\.type).first == "overlay")
        var overlays: [LiveOverlay] = []
        for event in received where event.type.hasPrefix("overlay") {
            switch try WorkspaceEvent.decode(name: event.type, data: event.dataBytes) {
            case .overlay(let whole): overlays.append(whole)
            case .overlayDelta(let delta):
                overlays.append(try #require(overlays.last.flatMap { delta.applied(to: $0) }))
            default: break
            }
        }
        #expect(received.filter { $0.type == "overlay.delta" }.count == overlays.count - 2)
        #expect(overlays.first?.revision == 0)
        let running = overlays.dropFirst().dropLast()
        // Revisions only go up (a stream that lags gets consecutive deltas joined into one).
        #expect(
            running.map(\.revision) == running.map(\.revision).sorted()
                && Set(running.map(\.revision)).count == running.count)
        #expect((running.first?.revision ?? 0) >= 1)
        // Every running overlay leads with the user's message; the reply follows as it streams
        // (a lagging stream may see only the newest overlays, so which ones is not fixed).
        #expect(running.allSatisfy { $0.blocks.first?.type == .user })
        #expect(running.allSatisfy { $0.blocks.dropFirst().allSatisfy { $0.type != .user } })
        #expect(overlays.last?.settlementEpoch == 2)
        #expect(overlays.last?.revision == 0)
        #expect(overlays.last?.blocks.isEmpty == true)
        let ids = received.map(\.lastEventId).compactMap { Int($0) }
        #expect(ids == ids.sorted() && Set(ids).count == ids.count)
        #expect(received.contains { $0.type == "run" && $0.data.contains("started") })
    }

    @Test func eventsHeartbeatOnTheInjectedClock() async throws {
        let harness = try AppHarness { $0.heartbeatInterval = .seconds(15) }
        let stream = await harness.send(
            "GET", "/v1/workspaces/events?desktopId=desk-1&projectId=proj-app&sessionId=sess-42")
        let clock = harness.clock
        let collecting = Task {
            await collect(stream) {
                String(decoding: $0, as: UTF8.self).components(separatedBy: ": heartbeat").count == 3
            }
        }
        #expect(await clock.waitForSleepers(count: 1))
        clock.advance(by: .seconds(15))
        let text = String(decoding: await collecting.value, as: UTF8.self)
        #expect(text.hasPrefix(": heartbeat\n\n"))
        #expect(text.hasSuffix(": heartbeat\n\n"))
    }

    @Test func chunkedUploadResumesFinishesWithTheDigestAndRefusesWrongChunks() async throws {
        let harness = try AppHarness()
        let key = "files.chatAttachmentUpload:sess-42:8a3c5e0f9b1d2e47"
        let data = (0..<(1 << 20) + 5).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        func begin(size: Int = (1 << 20) + 5) async -> HTTPServerResponse {
            await harness.rpc(
                "files.chatAttachmentUpload",
                #"{\#(chat), "fileName": "crash.bin", "mimeType": "application/octet-stream", "path": "/tmp/crash.bin", "size": \#(size)}"#,
                callKey: "\(key):begin")
        }
        func chunk(_ uploadId: String, _ index: Int, _ bytes: ArraySlice<UInt8>) async -> HTTPServerResponse {
            await harness.rpc(
                "files.chatAttachmentUpload",
                #"{"uploadId": "\#(uploadId)", "index": \#(index), "data": "\#(Data(bytes).base64EncodedString())"}"#,
                callKey: "\(key):chunk:\(index)")
        }
        let started = try json(await begin())["result"]
        let uploadId = try #require(started["uploadId"].string)
        #expect(started["chunkSize"].int == 1 << 20)
        #expect(started["receivedChunks"].int == 0)
        #expect(await chunk(uploadId, 0, data[..<(1 << 20)]).status == 200)
        #expect(try json(await begin())["result"]["receivedChunks"].int == 1)  // a restart resumes here
        let early = await harness.rpc(
            "files.chatAttachmentUpload", #"{"uploadId": "\#(uploadId)", "chunkCount": 2}"#, callKey: "\(key):finish")
        #expect(early.status == 409)
        let short = await chunk(uploadId, 1, data[(1 << 20)..<((1 << 20) + 4)])
        #expect(short.status == 400)
        #expect(await chunk(uploadId, 1, data[(1 << 20)...]).status == 200)
        #expect(await chunk(uploadId, 0, data[..<(1 << 20)]).status == 200)  // a retried chunk
        let changed = await chunk(uploadId, 0, ArraySlice([UInt8](repeating: 0, count: 1 << 20)))
        #expect(changed.status == 409)
        let finished = try json(
            await harness.rpc(
                "files.chatAttachmentUpload", #"{"uploadId": "\#(uploadId)", "chunkCount": 2}"#,
                callKey: "\(key):finish"))["result"]
        #expect(finished["size"].int == Int64(data.count))
        // hashlib.sha256 of the same bytes, computed outside the project.
        #expect(finished["sha256"].string == "24acd3e5bb5cd5103be5e7dae9442ef29110042e6f602ceb66b326a1cfa4f840")
        let tooBig = await harness.rpc(
            "files.chatAttachmentUpload",
            #"{\#(chat), "fileName": "big", "mimeType": "video/mp4", "path": "/tmp/big", "size": \#((1 << 30) + 1)}"#,
            callKey: "files.chatAttachmentUpload:sess-42:0000000000000001:begin")
        #expect(tooBig.status == 400)
        let atLimit = await harness.rpc(
            "files.chatAttachmentUpload",
            #"{\#(chat), "fileName": "big", "mimeType": "video/mp4", "path": "/tmp/big", "size": \#(1 << 30)}"#,
            callKey: "files.chatAttachmentUpload:sess-42:0000000000000001:begin")
        #expect(atLimit.status == 200)
        let sent = try json(
            await harness.rpc(
                "run.codexChatSubmit",
                #"{\#(chat), "operationId": "op-9", "mutationId": "m1", "mode": "send", "text": "", "attachments": ["\#(uploadId)"]}"#,
                callKey: "run.codexChatSubmit:op-9:m1"))
        #expect(sent["result"]["receipt"]["status"].string == "accepted")
    }
}
