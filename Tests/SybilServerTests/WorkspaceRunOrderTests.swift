import SybilWire
import Testing

@testable import SybilServer

/// Turns of a chat run in the order the desktop accepted them, also when a turn arrives in
/// the moment between one run ending and the next queued one starting (found by the seeded
/// workspace simulation: the new turn started at once and overtook the queued ones).
@Suite("Workspace run order", .timeLimit(.minutes(2)))
struct WorkspaceRunOrderTests {
    private static let chat = WorkspaceChatKey(desktopId: "desk-1", projectId: "proj-app", sessionId: "sess-42")

    private func accept(_ store: WorkspaceStore, _ operation: String) async throws -> (
        runId: String, started: WorkspaceStore.StartedRun?
    ) {
        let accepted = try await store.acceptSend(
            Self.chat, operationId: operation, text: "Turn \(operation)", now: 1_800_000_000_000,
            call: .init(key: "run.codexChatSubmit:\(operation):m1", fingerprint: operation) { "{\"runId\":\"\($0)\"}" })
        return (accepted.runId, accepted.started)
    }

    @Test func aTurnAcceptedBetweenARunEndingAndTheNextStartingQueuesBehindTheWaitingOnes() async throws {
        let store = try WorkspaceStore(.inMemory, agent: ScriptedAgent(seed: 1), now: 1_800_000_000_000)
        let first = try await accept(store, "op-1")
        #expect(first.started?.runId == first.runId)
        let second = try await accept(store, "op-2")
        #expect(second.started == nil)
        // The first run ends; the next queued one has not been started yet.
        _ = try await store.settleRun(Self.chat, runId: first.runId, ending: .finished, now: 1_800_000_000_001)
        let third = try await accept(store, "op-3")
        #expect(third.started == nil, "a turn accepted after op-2 must not start before it")
        let next = try await store.startNextRun(Self.chat, now: 1_800_000_000_002)
        #expect(next?.runId == second.runId)
        _ = try await store.settleRun(Self.chat, runId: second.runId, ending: .finished, now: 1_800_000_000_003)
        #expect(try await store.startNextRun(Self.chat, now: 1_800_000_000_004)?.runId == third.runId)
    }

    @Test func aTurnForAnIdleChatWithNothingQueuedStartsAtOnce() async throws {
        let store = try WorkspaceStore(.inMemory, agent: ScriptedAgent(seed: 1), now: 1_800_000_000_000)
        let first = try await accept(store, "op-1")
        _ = try await store.settleRun(Self.chat, runId: first.runId, ending: .finished, now: 1_800_000_000_001)
        let second = try await accept(store, "op-2")
        #expect(second.started?.runId == second.runId)
    }
}
