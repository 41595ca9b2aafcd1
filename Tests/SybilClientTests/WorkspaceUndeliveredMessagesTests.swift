import SybilClient
import SybilCore
import SybilStore
import SybilTesting
import SybilTimeline
import SybilWire
import Testing

/// SPEC §2 "nothing lost", §4.5: several messages the desktop rejects for good at once (steers
/// queued offline into a run that finished) each keep their text and reason; the draft takes
/// one back, the others wait in the composer's ``WorkspaceChatComposer/undelivered`` list.
@MainActor
@Suite("Workspace messages kept undelivered", .timeLimit(.minutes(2)))
struct WorkspaceUndeliveredMessagesTests {
    static let texts = ["Erst die Tests.", "Dann den Build.", "Zuletzt die Doku."]

    /// A composer over an outbox holding the three steers an earlier run left, and a desktop
    /// that rejects each for good.
    private func phone(restoresIntoDraft: Bool, undelivered: WorkspaceUndeliveredMessages) async throws
        -> WorkspaceChatComposer
    {
        let outbox = try WorkspaceOutbox(store: InMemoryKeyValueStore())
        for (index, text) in Self.texts.enumerated() {
            try await outbox.enqueue(
                WorkspaceOutboxEntry(
                    chat: chatA, operationId: "op-\(index)",
                    mutation: .init(mutationId: "m-\(index)", text: text, attachments: []),
                    mode: .steer(activeRunId: "run-finished"), createdAt: Int64(index)))
        }
        let desktop = FakeDesktop()
        desktop.behaviour = .reject("The run has finished.")
        let ids = RandomUUIDGenerator(source: SeededRandomSource(seed: 5))
        let sender = WorkspaceOutboxSender(outbox: outbox, rpc: desktop, clock: ManualClock(), ids: ids, now: { 0 })
        let host = WorkspaceChatHost(
            key: chatA, rpc: ScriptedWorkspaceChatRPC(), clock: ManualClock(), random: SeededRandomSource(seed: 5))
        return WorkspaceChatComposer(
            host: host, outbox: outbox, sender: sender, ids: ids, now: { 0 }, undelivered: undelivered,
            restoresIntoDraft: restoresIntoDraft)
    }

    @Test func theDraftTakesTheFirstBackAndEveryOtherIsKeptWithItsReason() async throws {
        let composer = try await phone(restoresIntoDraft: true, undelivered: WorkspaceUndeliveredMessages())
        await composer.restore()
        #expect(composer.draft == Self.texts[0])
        #expect(composer.undelivered.map(\.text) == Array(Self.texts.dropFirst()), "oldest first, none lost")
        #expect(composer.undelivered.allSatisfy { $0.reason == "The run has finished." && $0.cause == .rejected })
        #expect(composer.undelivered.allSatisfy { $0.mode == .steer(activeRunId: "run-finished") })
        #expect(composer.deliveries.isEmpty)
    }

    @Test func aComposerTheAppDoesNotShowKeepsEachAndHandsTheFirstToAnEmptyComposer() async throws {
        let composer = try await phone(restoresIntoDraft: false, undelivered: WorkspaceUndeliveredMessages())
        await composer.restore()
        #expect(composer.draft.isEmpty, "the draft nobody sees holds nothing")
        #expect(composer.undelivered.map(\.text) == Self.texts)

        let handOver = composer.handOverReturned(toComposerHolding: " ")
        #expect(handOver.restored?.text == Self.texts[0], "a blank composer takes the oldest back")
        #expect(handOver.kept.map(\.text) == Array(Self.texts.dropFirst()))
        #expect(composer.undelivered.map(\.text) == Array(Self.texts.dropFirst()))
        #expect(composer.handOverReturned(toComposerHolding: "").restored == nil, "each is handed over once")

        #expect(composer.takeBackOldest(toComposerHolding: "Mein Entwurf") == .draftInTheWay(composer.undelivered[0]))
        #expect(composer.undelivered.count == 2, "a draft is never replaced; the message stays kept")
        guard case .restored(let second) = composer.takeBackOldest(toComposerHolding: "") else {
            Issue.record("the oldest kept comes back into an empty composer")
            return
        }
        #expect(second.text == Self.texts[1])
        guard case .restored(let third) = composer.takeBackOldest(toComposerHolding: "") else {
            Issue.record("then the next")
            return
        }
        #expect(third.text == Self.texts[2])
        #expect(composer.takeBackOldest(toComposerHolding: "") == .nothingKept)
    }

    @Test func aComposerHoldingADraftGetsNoneBackAndAClosedChatsMessagesWaitForItsNextOpening() async throws {
        let shared = WorkspaceUndeliveredMessages()
        let composer = try await phone(restoresIntoDraft: false, undelivered: shared)
        await composer.restore()
        let handOver = composer.handOverReturned(toComposerHolding: nil)
        #expect(handOver.restored == nil, "no composer of the chat is on screen")
        #expect(handOver.kept.map(\.text) == Self.texts)
        await composer.close()
        #expect(shared.messages(in: chatA).map(\.text) == Self.texts, "kept beyond the composer that sent them")
        #expect(shared.messages(in: chatB).isEmpty)
    }

    @Test func theListKeepsEachMessageOnceAndNoneLeavesForACount() {
        let list = WorkspaceUndeliveredMessages()
        func message(_ id: Int, in chat: WorkspaceChatKey) -> WorkspaceUndeliveredMessages.Message {
            WorkspaceUndeliveredMessages.Message(
                entry: WorkspaceOutboxEntry(
                    chat: chat, operationId: "op-\(id)", mutation: .init(mutationId: "m-\(id)", text: "\(id)"),
                    mode: .send, createdAt: 0),
                cause: .rejected, reason: "no")
        }
        list.keep(message(1000, in: chatB))
        for id in 0...300 { list.keep(message(id, in: chatA)) }
        list.keep(message(5, in: chatA))
        #expect(list.messages(in: chatA).count == 301, "kept once each")
        #expect(list.messages(in: chatA).first?.id == "op-0", "no text the person wrote leaves for a count")
        #expect(list.messages(in: chatB).map(\.id) == ["op-1000"], "another chat's are not touched")
        #expect(list.take("op-1000", in: chatA)?.id == nil, "ids are per chat")
        #expect(list.take("op-1000", in: chatB)?.id == "op-1000")
    }
}
