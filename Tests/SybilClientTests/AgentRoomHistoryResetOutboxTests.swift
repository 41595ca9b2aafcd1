import Foundation
import SybilClient
import SybilCore
import SybilNet
import SybilTesting
import SybilWire
import Testing

/// The Agent room's outbox when the server lost the history the room merged: the room, a
/// real sender that removes confirmed entries (as the app's does) and the composer joining
/// them. Scripted sockets, a manual clock.
@MainActor
@Suite("Agent room outbox after its server lost the history", .timeLimit(.minutes(2)))
struct AgentRoomHistoryResetOutboxTests {
    typealias F = AgentRoomFixtures

    let clock = ManualClock()
    let sockets = ScriptedAgentSockets()

    /// The delays of the stream's policy for its first drops, with its seed.
    private func delays(_ count: Int) -> [Duration] {
        var policy = ReconnectPolicy()
        let random = SeededRandomSource(seed: 5)
        return (0..<count).map { _ in policy.connectionDropped(uptime: .zero, random: random).delay }
    }

    /// A message of the server that came back: its cursors start again from the beginning.
    private static func fresh(_ sequence: Int) -> AgentRoomMessage {
        AgentRoomMessage(
            messageId: "new-\(sequence)", cursor: F.cursor(sequence), role: .assistant, visibility: .public,
            text: "new \(sequence)", createdAt: 1_791_968_400_000 + Int64(sequence) * 60_000)
    }

    private func composer(_ room: RestartingRoomAPI, _ directory: OutboxDirectory) async throws -> AgentRoomComposer {
        let model = AgentRoomModel(
            api: room,
            stream: AgentRoomStream(
                base: try AgentAPIBase(string: "https://h/api"), tokens: F.tokens(), connector: sockets, clock: clock,
                random: SeededRandomSource(seed: 5)),
            timeZone: TimeZone(secondsFromGMT: 0)!)
        let outbox = try await openOutbox(directory)
        let draft = AgentAttachmentDraft(
            api: room, storage: AgentAttachmentFileStore(directory: directory.path, baseURL: outboxBase),
            ids: SequentialIDGenerator(prefix: "up"))
        return AgentRoomComposer(
            room: model, outbox: outbox, sender: AgentOutboxSender(outbox: outbox, api: room, removesConfirmed: true),
            draft: draft)
    }

    /// The old server acknowledged the message at c4 and lost it before its echo; the new one
    /// has c1–c5. Its cursors say nothing about the old acknowledgement: the message goes back
    /// to the person with Retry (same request id and time) instead of being confirmed and
    /// removed, and Retry delivers it to the new server.
    @Test func aMessageTheLostHistoryAcknowledgedWithoutItsEchoGoesBackWithRetry() async throws {
        let directory = OutboxDirectory()
        defer { directory.cleanUp() }
        let room = RestartingRoomAPI((1...3).map { F.message($0) }, acceptsSubmissions: true)
        let composer = try await composer(room, directory)
        let (model, outbox, sender) = (composer.room, composer.outbox, composer.sender)
        await composer.start()
        let first = await sockets.connection(1)
        let entry = try await outbox.enqueue(text: "please keep me")
        await waitForRoom("the acknowledgement") {
            outbox.entry(entry.requestId)?.state == .awaitingEcho && outbox.pendingChanges == 0
        }
        #expect(outbox.entry(entry.requestId)?.acknowledgement?.cursor == F.cursor(4))

        // The server restarts without its history before the echo is streamed; the new one has
        // five messages of its own.
        first.lose()
        let delays = delays(2)
        await waitForRoom("the drop") { model.connection != .connected && model.connectionsOpened == 1 }
        room.restart(with: (1...5).map { Self.fresh($0) })
        clock.advance(by: delays[0])
        let refused = await sockets.connection(2)
        refused.close(with: AgentStreamClose.historyLost, reason: AgentStreamClose.historyLostReason)
        await waitForRoom("the server's history, with the outbox settled") {
            model.history.messages.first?.messageId == "new-1" && sender.pendingConfirmations == 0
                && outbox.pendingChanges == 0
        }
        #expect(sender.mergedThrough == F.cursor(5))
        let kept = try #require(outbox.entry(entry.requestId), "the message is still the person's")
        #expect(kept.state == .failed && kept.canRetry && kept.failure == .historyLost)
        #expect(kept.text == "please keep me" && kept.createdAt == entry.createdAt && kept.acknowledgement == nil)
        #expect(try storedDocument(outbox.file).entries == [kept], "saved as failed")

        // Retry sends it with the same request id; the new server stores it at c6 and its echo
        // confirms it (only then it leaves the outbox).
        try await composer.retry(entry.requestId)
        await waitForRoom("the new acknowledgement") {
            room.submissions.count == 2 && outbox.entry(entry.requestId)?.state == .awaitingEcho
                && outbox.pendingChanges == 0
        }
        #expect(room.submissions.map(\.requestId) == [entry.requestId, entry.requestId])
        #expect(outbox.entry(entry.requestId)?.acknowledgement?.cursor == F.cursor(6))
        clock.advance(by: delays[1])
        let third = await sockets.connection(3)
        #expect(third.after == F.cursor(5).rawValue)
        third.send(.message(try #require(room.stored(entry.requestId))))
        await waitForRoom("the echo retired it") { outbox.entries.isEmpty && model.history.messages.count == 6 }
        await composer.close()
    }
}
