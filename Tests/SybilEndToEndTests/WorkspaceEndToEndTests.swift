import Foundation
import SybilClient
import SybilCore
import SybilHTTP
import SybilNet
import SybilServer
import SybilStore
import SybilTesting
import SybilTimeline
import SybilWire
import Testing

@testable import SybilServer

/// Workspace chats end to end: the phone's host, composer, outbox and live feed against the
/// reference server over real sockets (SPEC §4).
@MainActor
@Suite("Workspace chats end to end", .timeLimit(.minutes(2)))
struct WorkspaceEndToEndTests {
    @Test func aSentMessageStreamsLiveThenSettlesIntoHistoryAndConfirmsItsOutboxEntry() async throws {
        let server = try startServer()
        defer { Task { await server.shutdown() } }
        let desktop = desktopClient(server)
        let phone = try await Phone.launch(chat: emptyChat, store: InMemoryKeyValueStore(), desktop: desktop)
        #expect(phone.host.timeline.window.isEmpty)
        let epochBefore = phone.host.timeline.overlay.settlementEpoch
        let feed = follow(emptyChat, on: server, host: phone.host)
        await waitUntil("the first event") { feed.eventsHandled > 0 }

        phone.composer.draft = "Bitte den Login reparieren."
        let outcome = await phone.composer.send()
        #expect(outcome == .accepted)
        #expect(phone.composer.draft == "", "the draft is cleared once the message is saved")
        let operationId = try #require(phone.composer.deliveries.first?.id)

        // The run's end reloads the window: the message and the reply are history now.
        await waitUntil("the message in history") { phone.historyUserTexts == ["Bitte den Login reparieren."] }
        let user = try #require(phone.host.timeline.window.first { $0.type == .user })
        #expect(user.operationId == operationId, "history carries the operation id")
        #expect(phone.host.timeline.window.contains { $0.type == .agentReply && $0.origin == .canonical })
        #expect(phone.host.timeline.overlay.settlementEpoch > epochBefore, "settlement starts a new epoch")
        #expect(phone.host.timeline.pending.isEmpty)
        await waitUntil("the outbox entry confirmed") { phone.composer.deliveries.isEmpty }
        #expect(await phone.outbox.pendingEntries(in: emptyChat).isEmpty)
        await feed.stop()
    }

    @Test func aSteerJoinsTheRunningTurnAndHistoryKeepsItAfterTheFirstMessage() async throws {
        let server = try startServer(clock: ManualClock())
        defer { Task { await server.shutdown(grace: .zero) } }
        let desktop = desktopClient(server)
        let phone = try await Phone.launch(chat: emptyChat, store: InMemoryKeyValueStore(), desktop: desktop)
        phone.composer.draft = "Start the migration."
        #expect(await phone.composer.send() == .accepted)
        phone.host.handle(.explicitRefresh)
        await waitUntil("the running run") { phone.host.timeline.activeRunId != nil }
        let runId = try #require(phone.host.timeline.activeRunId)

        phone.composer.draft = "Also keep the old column."
        #expect(await phone.composer.send(steer: true) == .accepted)
        let stopped = try await desktop.stop(WorkspaceRunStop(chat: emptyChat, runId: runId))
        #expect(stopped == .init(runId: runId, state: .stopped))
        phone.host.handle(.runEnded(.stopped))
        await waitUntil("both messages in history") { phone.historyUserTexts.count == 2 }
        #expect(phone.historyUserTexts == ["Start the migration.", "Also keep the old column."])
        #expect(phone.host.timeline.activeRunId == nil)
    }

    @Test func aRejectedSteerGivesTheTextBackToTheComposer() async throws {
        let server = try startServer(clock: ManualClock())
        defer { Task { await server.shutdown(grace: .zero) } }
        let desktop = desktopClient(server)
        let phone = try await Phone.launch(chat: emptyChat, store: InMemoryKeyValueStore(), desktop: desktop)
        phone.composer.draft = "Run the tests."
        #expect(await phone.composer.send() == .accepted)
        phone.host.handle(.explicitRefresh)
        await waitUntil("the running run") { phone.host.timeline.activeRunId != nil }
        let runId = try #require(phone.host.timeline.activeRunId)
        // The run ends on the desktop before the phone hears of it.
        _ = try await desktop.stop(WorkspaceRunStop(chat: emptyChat, runId: runId))

        phone.composer.draft = "Only the unit tests."
        guard case .rejected(let reason)? = await phone.composer.send(steer: true) else {
            Issue.record("a steer into an ended run must be rejected")
            return
        }
        #expect(reason.contains("send it as a new message"))
        #expect(phone.composer.draft == "Only the unit tests.", "the rejected text is back in the composer")
        #expect(phone.composer.notice?.contains(reason) == true)
        #expect(!phone.host.timeline.pending.contains { $0.text == "Only the unit tests." })
        #expect(
            await phone.outbox.pendingEntries(in: emptyChat).allSatisfy { $0.mutation.text != "Only the unit tests." })
    }

    @Test func aDesktopThatGoesOfflineAndComesBackMarksTheChatStaleAndReloads() async throws {
        let server = try startServer { $0.debugDesktops = true }
        defer { Task { await server.shutdown() } }
        let desktop = desktopClient(server)
        let phone = try await Phone.launch(chat: seededChat, store: InMemoryKeyValueStore(), desktop: desktop)
        let feed = follow(seededChat, on: server, host: phone.host)
        await waitUntil("the first event") { feed.eventsHandled > 0 }
        let loadsBefore = phone.host.appliedLoads
        let rowsBefore = phone.host.timeline.window

        try await setOnline(desktop, false)
        await waitUntil("the offline event") { feed.desktopOffline }
        do {
            _ = try await desktop.codexChatLoad(seededChat)
        } catch WorkspaceDesktopError.desktopOffline(let message, let retryAfter) {
            #expect(message.contains("offline"))
            #expect(retryAfter == 30)
        } catch {
            Issue.record("an offline desktop is a 503 desktopOffline, got \(error)")
        }
        #expect(phone.host.timeline.window == rowsBefore, "the rows stay while the desktop is away")

        try await setOnline(desktop, true)
        await waitUntil("the reload after the restore") { phone.host.appliedLoads > loadsBefore }
        #expect(!feed.desktopOffline)
        #expect(phone.host.timeline.window == rowsBefore)
        await feed.stop()
    }

    @Test func anEventsStreamCutMidwayReplaysFromLastEventIDWithNothingLostOrDoubled() async throws {
        let server = try startServer()
        defer { Task { await server.shutdown() } }
        let desktop = desktopClient(server)
        let reconnectClock = ManualClock()
        let cutting = CuttingHTTPClient(cutAfterEvents: 4)
        let policy = ReconnectPolicy(initialDelay: .seconds(1), jitter: 0)
        let cut = WorkspaceEventsClient(
            chat: emptyChat, baseURL: server.baseURL, http: cutting, tokens: endToEndTokens(), clock: reconnectClock,
            random: SeededRandomSource(seed: 1), policy: policy)
        let whole = WorkspaceEventsClient(
            chat: emptyChat, baseURL: server.baseURL, http: DefaultHTTPClient.make(), tokens: endToEndTokens(),
            clock: ContinuousClock(), random: SeededRandomSource(seed: 1))
        let cutLog = EventLog(cut.updates())
        let wholeLog = EventLog(whole.updates())
        await cutLog.waitFor { $0.connections == 1 && !$0.events.isEmpty }
        await wholeLog.waitFor { $0.connections == 1 && !$0.events.isEmpty }

        let receipt = try await desktop.codexChatSubmit(
            WorkspaceSubmission(
                chat: emptyChat, operationId: "op-cut", mutationId: "m-1", mode: .send, text: "Stream me."))
        guard case .accepted = receipt.outcome else { throw ExpectationFailure("the send was not accepted") }
        await wholeLog.waitFor { log in log.events.contains { if case .session = $0.event { true } else { false } } }
        await cutLog.waitFor { $0.disconnects == 1 }
        #expect(await reconnectClock.waitForSleepers(count: 1))
        reconnectClock.advance(by: .seconds(1))
        await cutLog.waitFor { log in log.events.contains { if case .session = $0.event { true } else { false } } }

        let expected = await wholeLog.snapshot().events
        let received = await cutLog.snapshot()
        #expect(received.connections == 2, "the cut stream reconnected once")
        // A subscriber that lags gets superseded overlays joined into the newest (either stream
        // may), so overlays are compared by their end state; every other event exactly.
        func isOverlay(_ event: WorkspaceEvent) -> Bool { if case .overlay = event { true } else { false } }
        let receivedIds = received.events.map(\.id)
        #expect(Set(receivedIds).count == receivedIds.count, "no event twice across the cut")
        let shared = Set(receivedIds).intersection(expected.map(\.id))
        #expect(receivedIds.filter(shared.contains) == expected.map(\.id).filter(shared.contains), "in order")
        #expect(
            received.events.filter { !isOverlay($0.event) }.map(\.event)
                == expected.filter { !isOverlay($0.event) }.map(\.event),
            "every run and session event once, in order, across the cut")
        #expect(received.events.last?.event == expected.last?.event, "the same end state")
        let beforeCut = received.events.filter { $0.connection == 1 }
        // The cut falls after the fourth blank line on the wire; a heartbeat comment that came
        // in between (a slow run passes the heartbeat interval) takes one of those places.
        #expect((1...4).contains(beforeCut.count))
        #expect(cutting.lastEventIDs == [nil, beforeCut.last?.id], "the reconnect named the last event seen")
    }

    @Test func aRelaunchResendsWhatThePhoneCouldNotDeliverOnceAndInOrder() async throws {
        let server = try startServer()
        defer { Task { await server.shutdown() } }
        let desktop = desktopClient(server)
        let store = InMemoryKeyValueStore()
        let offline = try await Phone.launch(
            chat: emptyChat, store: store, desktop: desktop, submit: UnreachableSubmit(),
            ids: SequentialIDGenerator(prefix: "a"))
        for text in ["Eins.", "Zwei."] {
            offline.composer.draft = text
            guard case .failed? = await offline.composer.send() else {
                throw ExpectationFailure("an unreachable desktop leaves the entry pending")
            }
        }
        #expect(offline.composer.deliveries.map(\.text) == ["Eins.", "Zwei."])
        offline.host.park()

        // The app is relaunched with the network back: the outbox copy is all that is left.
        let relaunched = try await Phone.launch(
            chat: emptyChat, store: store, desktop: desktop, ids: SequentialIDGenerator(prefix: "b"))
        let feed = follow(emptyChat, on: server, host: relaunched.host)
        await waitUntil("the first event") { feed.eventsHandled > 0 }
        await relaunched.composer.restore()
        #expect(relaunched.composer.deliveries.map(\.state) == [.accepted, .accepted])
        await waitUntil("both in history") { relaunched.historyUserTexts.count == 2 }
        #expect(relaunched.historyUserTexts == ["Eins.", "Zwei."])
        await waitUntil("both confirmed") { relaunched.composer.deliveries.isEmpty }
        await feed.stop()

        // Another relaunch sends nothing again.
        let third = try await Phone.launch(
            chat: emptyChat, store: store, desktop: desktop, ids: SequentialIDGenerator(prefix: "c"))
        await third.composer.restore()
        #expect(third.composer.deliveries.isEmpty)
        #expect(third.historyUserTexts == ["Eins.", "Zwei."], "each message once")
    }

    @Test func aPhoneThatDiesAfterTheDesktopAcceptedDoesNotSendAgainAndHistoryConfirmsIt() async throws {
        let server = try startServer()
        defer { Task { await server.shutdown() } }
        let desktop = desktopClient(server)
        let store = InMemoryKeyValueStore()
        let first = try await Phone.launch(chat: emptyChat, store: store, desktop: desktop)
        first.composer.draft = "Accepted, then the phone died."
        #expect(await first.composer.send() == .accepted)
        // The process ends here: no confirmation was recorded.
        first.host.park()
        #expect(await first.outbox.pendingEntries(in: emptyChat).map(\.acceptedByDesktop) == [true])

        let submissions = CountingSubmit(desktop)
        let relaunched = try await Phone.launch(chat: emptyChat, store: store, desktop: desktop, submit: submissions)
        let feed = follow(emptyChat, on: server, host: relaunched.host)
        await relaunched.composer.restore()
        #expect(submissions.count == 0, "accepted before the crash: not sent again")
        relaunched.host.handle(.explicitRefresh)
        await waitUntil("history with the message") { relaunched.historyUserTexts.count == 1 }
        await waitUntil("the entry confirmed") { relaunched.composer.deliveries.isEmpty }
        #expect(relaunched.historyUserTexts == ["Accepted, then the phone died."])
        #expect(await relaunched.outbox.pendingEntries(in: emptyChat).isEmpty)
        await feed.stop()
    }

    @Test func aMultiChunkUploadInterruptedByARestartResumesFromTheFirstMissingChunk() async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("build.log")
        var bytes = [UInt8](repeating: 0, count: (5 << 20) / 2)
        for index in bytes.indices { bytes[index] = UInt8(truncatingIfNeeded: index &* 31 &+ 7) }
        try Data(bytes).write(to: file)
        let attachment = AttachmentUploader.File(path: file.path, fileName: "build.log", mimeType: "text/plain")
        let data = directory.appendingPathComponent("server").path

        let first = try startServer { $0.storage = .directory(data) }
        let dying = CountingUploadRPC(desktopClient(first), failAfterChunks: 2)
        await #expect(throws: AttachmentUploadError.self) {
            _ = try await AttachmentUploader(rpc: dying, stagingDirectory: directory.path).upload(
                attachment, to: seededChat)
        }
        #expect(dying.chunksSent == [0, 1])
        await first.shutdown()

        let second = try startServer { $0.storage = .directory(data) }
        defer { Task { await second.shutdown() } }
        let resuming = CountingUploadRPC(desktopClient(second))
        let result = try await AttachmentUploader(rpc: resuming, stagingDirectory: directory.path).upload(
            attachment, to: seededChat)
        #expect(resuming.chunksSent == [2], "only the missing chunk goes again")
        #expect(result.size == Int64(bytes.count))
        #expect(result.sha256 == SHA256Digest.hex(bytes))
    }

    @Test func aMalformedAnswerIsATypedErrorNamingThePathAndTheHostKeepsItsRows() async throws {
        let server = try startServer()
        defer { Task { await server.shutdown() } }
        let good = try await desktopClient(server).codexChatLoad(seededChat)
        let broken = try LoopbackHTTPServer { _, connection in
            var envelope = good.jsonValue
            if case .object(var object) = envelope, case .array(var rows)? = object["timeline"],
                case .object(var row) = rows[0]
            {
                row.members = row.members.map { $0.key == "type" ? JSONMember("type", "bogus") : $0 }
                rows[0] = .object(row)
                object.members = object.members.map { $0.key == "timeline" ? JSONMember("timeline", .array(rows)) : $0 }
                envelope = .object(object)
            }
            let body = JSONWriter().string(from: WorkspaceRPCResult.jsonValue(envelope))
            connection.write(
                "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)"
            )
        }
        let switching = SwitchingChatRPC(first: desktopClient(server))
        let host = WorkspaceChatHost(
            key: seededChat, rpc: switching, clock: ContinuousClock(), random: SeededRandomSource(seed: 1))
        host.activate()
        await waitUntil("the first load") { host.appliedLoads == 1 }
        let rows = host.timeline.window
        #expect(!rows.isEmpty)

        let brokenDesktop = WorkspaceDesktopClient(
            baseURL: URL(string: "http://127.0.0.1:\(broken.port)")!, http: DefaultHTTPClient.make(),
            tokens: endToEndTokens())
        do {
            _ = try await brokenDesktop.codexChatLoad(seededChat)
            Issue.record("a malformed envelope must be refused")
        } catch WorkspaceDesktopError.malformedAnswer(let reason) {
            #expect(reason.contains("result.timeline[0].type"))
        } catch {
            Issue.record("expected malformedAnswer, got \(error)")
        }
        switching.use(brokenDesktop)
        host.handle(.explicitRefresh)
        await waitUntil("the failed load") { host.lastLoadError != nil }
        #expect(host.lastLoadError?.contains("timeline[0].type") == true)
        #expect(host.timeline.window == rows, "the visible rows stay as they were")
        host.park()
    }

    /// A live feed of `chat`'s events into `host`.
    private func follow(_ chat: WorkspaceChatKey, on server: ReferenceServer, host: WorkspaceChatHost)
        -> WorkspaceLiveFeed
    {
        let feed = WorkspaceLiveFeed()
        let events = WorkspaceEventsClient(
            chat: chat, baseURL: server.baseURL, http: DefaultHTTPClient.make(), tokens: endToEndTokens(),
            clock: ContinuousClock(), random: SeededRandomSource(seed: 1))
        feed.follow(events.updates(), host: host)
        return feed
    }

    nonisolated private func setOnline(_ desktop: WorkspaceDesktopClient, _ online: Bool) async throws {
        _ = try await desktop.call(
            WorkspaceRPCRequest(
                method: "desktop.setOnline", params: ["desktopId": "desk-1", "online": .bool(online)]),
            { value, _ throws(JSONError) in value })
    }
}

struct ExpectationFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
