import Foundation
import SybilClient
import SybilCore
import SybilHTTP
import SybilNet
import SybilServer
import SybilTesting
import SybilWire
import Testing

/// The Agent room composer (room + draft + outbox + sender) against the reference server over
/// real sockets: what `sybil agent send` and an app's composer do.
@Suite("Agent composer end to end", .timeLimit(.minutes(2)))
@MainActor
struct AgentComposerEndToEndTests {
    /// A phone's Agent room screen over `server` under `/api`, its outbox and draft in `directory`.
    static func open(_ server: ReferenceServer, directory: URL, seed: UInt64 = 5) async throws -> AgentRoomComposer {
        let base = try AgentAPIBase(server.baseURL.appendingPathComponent("api"))
        let random = SeededRandomSource(seed: seed)
        let http = DefaultHTTPClient.make(redirects: .deliver)
        let api = AgentRoomHTTPClient(base: base, http: http, tokens: endToEndTokens(), random: random)
        let room = AgentRoomModel(
            base: base, tokens: endToEndTokens(), http: http, clock: ContinuousClock(), random: random,
            timeZone: TimeZone(identifier: "UTC")!)
        let ids = RandomUUIDGenerator(source: SeededRandomSource(seed: seed &+ 1))
        let outbox = try await AgentOutbox.open(
            directory: directory.path, baseURL: base.url, ids: ids, now: { 1_800_000_000_000 })
        let draft = AgentAttachmentDraft(
            api: api, storage: AgentAttachmentFileStore(directory: directory.path, baseURL: base.url), ids: ids)
        return AgentRoomComposer(
            room: room, outbox: outbox, sender: AgentOutboxSender(outbox: outbox, api: api, removesConfirmed: true),
            draft: draft)
    }

    /// A composer over `server`, started, its stream connected.
    static func connected(_ server: ReferenceServer) async throws -> AgentRoomComposer {
        let composer = try await open(server, directory: temporaryDirectory())
        await composer.start()
        await waitUntil("the stream connected") { composer.room.connection == .connected }
        return composer
    }

    /// Sends `text` as the caption and waits until its echo retired its outbox entry.
    static func sendAndRetire(_ composer: AgentRoomComposer, _ text: String) async {
        await composer.updateCaption(text)
        #expect(await composer.send() != nil)
        await waitUntil("its echo retired it") {
            composer.outbox.entries.isEmpty && userMessages(composer, text: text).count == 1
        }
    }

    /// The room's user messages with `text`.
    static func userMessages(_ composer: AgentRoomComposer, text: String) -> [AgentRoomMessage] {
        composer.room.history.messages.filter { $0.role == .user && $0.text == text }
    }

    @Test func aDraftWithAttachmentsIsQueuedSentAndRetiredByItsEcho() async throws {
        let server = try startServer()
        defer { Task { await server.shutdown() } }
        let directory = temporaryDirectory()
        let composer = try await Self.open(server, directory: directory)
        await composer.start()
        await waitUntil("attachments offered") { composer.draft.canSelect }
        await composer.draft.select([
            .bytes(Array("first\n".utf8), kind: .file, fileName: "a.txt"),
            .bytes(Array("second\n".utf8), kind: .file, fileName: ".b.log"),
        ])
        await waitUntil("both uploaded") {
            composer.draft.items.count == 2 && composer.draft.items.allSatisfy(\.isReady)
        }
        let ids = composer.draft.items.map(\.id)
        await composer.updateCaption("Two logs")
        let entry = try #require(await composer.send())
        #expect(entry.attachments.map(\.uploadId) == ids)
        #expect(composer.draft.items.isEmpty && composer.draft.caption.isEmpty)
        await waitUntil("the echo retired the entry") {
            composer.outbox.entries.isEmpty && Self.userMessages(composer, text: "Two logs").count == 1
        }
        let echoed = try #require(Self.userMessages(composer, text: "Two logs").first)
        #expect(echoed.requestId == entry.requestId)
        #expect(echoed.attachments.map(\.uploadId) == ids)
        #expect(echoed.attachments.map(\.fileName) == ["a.txt", ".b.log"])
        await composer.stop()
    }

    @Test func aCrashBetweenTheOutboxSavingAndTheDraftClearingSendsOnce() async throws {
        let server = try startServer()
        defer { Task { await server.shutdown() } }
        let directory = temporaryDirectory()
        do {
            // The first launch saves the draft, the outbox saves the message, and the app dies
            // before the draft is cleared (nothing is sent: the sender never started).
            let first = try await Self.open(server, directory: directory)
            await first.draft.restore()
            await first.updateCaption("Only once")
            let handoff = try await first.draft.prepareHandoff()
            try await first.outbox.enqueue(text: handoff.caption, draftId: handoff.draftId)
        }
        let second = try await Self.open(server, directory: directory)
        await second.start()
        #expect(second.draft.caption.isEmpty, "the recovered draft is not offered again")
        await waitUntil("the message confirmed") {
            second.outbox.entries.isEmpty && Self.userMessages(second, text: "Only once").count == 1
        }
        // A send of what is left (nothing) queues nothing.
        #expect(await second.send() == nil)
        await second.stop()
        let third = try await Self.open(server, directory: directory)
        await third.start()
        await waitUntil("history loaded") { !third.room.history.messages.isEmpty }
        #expect(Self.userMessages(third, text: "Only once").count == 1)
        #expect(third.outbox.entries.isEmpty)
        await third.stop()
    }

    /// An app sent to the background and brought back: the draft as it was (read once, at the
    /// first start), the room following again, and what is written then sent.
    @Test func aComposerStartedAgainAfterAStopKeepsItsDraftAndSends() async throws {
        let server = try startServer()
        defer { Task { await server.shutdown() } }
        let composer = try await Self.open(server, directory: temporaryDirectory())
        await composer.start()
        await composer.updateCaption("Written before the break")
        await composer.stop()
        await composer.start()
        #expect(composer.isStarted && composer.sender.isRunning)
        #expect(composer.draft.caption == "Written before the break")
        await Self.sendAndRetire(composer, "Written before the break")
        await composer.stop()
    }

    /// An app sent to the background and brought back at once: the start comes while the stop
    /// still waits for the room to end. The composer ends started, with its sender running.
    @Test func aStartWhileAStopIsUnderWayLeavesTheComposerStartedAndSending() async throws {
        let server = try startServer()
        defer { Task { await server.shutdown() } }
        let composer = try await Self.connected(server)
        let stopping = Task { await composer.stop() }
        // The stop has ended its room's tasks and waits for them to end.
        await waitUntil("the stop under way") { !composer.isStarted }
        await composer.start()
        await stopping.value
        #expect(composer.isStarted)
        #expect(composer.sender.isRunning, "the stop did not stop the sender after the start")
        await waitUntil("the stream connected again") { composer.room.connection == .connected }
        await Self.sendAndRetire(composer, "After the round trip")
        await composer.stop()
    }

    /// Brought back and sent to the background again while the first stop still ends the room:
    /// the start waits for that stop, and the stop after it is the last word. The composer ends
    /// stopped, its sender and room too, and the second stop returns once they ended.
    @Test func aStopAfterAStartWaitingForAStopLeavesTheComposerStopped() async throws {
        let server = try startServer()
        defer { Task { await server.shutdown() } }
        let composer = try await Self.connected(server)
        // The three run on the main actor in the order they were made: the first stop waits for
        // the room's tasks to end, the start waits for that stop, then the second stop comes.
        let stopping = Task { await composer.stop() }
        let starting = Task { await composer.start() }
        let stoppingAgain = Task { await composer.stop() }
        await stoppingAgain.value
        #expect(
            composer.room.connection == .idle && !composer.sender.isRunning,
            "the second stop returned before the first one ended")
        await starting.value
        await stopping.value
        #expect(!composer.isStarted, "the start that waited came back after the last stop")
        #expect(!composer.sender.isRunning)
        #expect(composer.room.connection == .idle)
    }

    @Test func attachmentsUnavailableDisableSelectionAndKeepTheDraft() async throws {
        let server = try startServer { $0.attachmentsAvailable = false }
        defer { Task { await server.shutdown() } }
        let composer = try await Self.open(server, directory: temporaryDirectory())
        await composer.start()
        await composer.updateCaption("Text still works")
        await waitUntil("the room saw 4503") { !composer.room.attachmentsAvailable }
        await waitUntil("the draft follows") { !composer.draft.canSelect }
        #expect(composer.draft.caption == "Text still works")
        #expect(await composer.send() != nil)
        await waitUntil("the text confirmed") { Self.userMessages(composer, text: "Text still works").count == 1 }
        await composer.stop()
    }
}
