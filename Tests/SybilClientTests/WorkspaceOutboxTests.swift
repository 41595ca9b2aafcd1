import Foundation
import SybilClient
import SybilCore
import SybilStore
import SybilTimeline
import SybilWire
import Testing

@Suite("Workspace outbox copy", .timeLimit(.minutes(2)))
struct WorkspaceOutboxTests {
    private func entry(_ operationId: String, _ text: String = "hi", chat: WorkspaceChatKey = chatA)
        -> WorkspaceOutboxEntry
    {
        WorkspaceOutboxEntry(
            chat: chat, operationId: operationId, mutation: .init(mutationId: "m-\(operationId)", text: text),
            mode: .send, createdAt: 1_000)
    }

    @Test func entriesSurviveARelaunchInOrder() async throws {
        let store = InMemoryKeyValueStore()
        let outbox = try WorkspaceOutbox(store: store)
        try await outbox.enqueue(entry("op-1", "eins"))
        var steer = entry("op-2", "zwei")
        steer.mode = .steer(activeRunId: "run-7")
        try await outbox.enqueue(steer)
        try await outbox.enqueue(entry("op-3", chat: chatB))
        let relaunched = try WorkspaceOutbox(store: store)
        #expect(await relaunched.pendingEntries(in: chatA) == [entry("op-1", "eins"), steer])
        #expect(await relaunched.pendingEntries(in: chatB).map(\.operationId) == ["op-3"])
        #expect(await relaunched.loadProblems.isEmpty)
    }

    @Test func theStoredFormatIsVersion2WithPerScopeOrder() async throws {
        let store = InMemoryKeyValueStore()
        let outbox = try WorkspaceOutbox(store: store)
        try await outbox.enqueue(entry("op-1", "eins"))
        try await outbox.complete("op-1", in: chatA)
        var accepted = entry("op-2", "zwei")
        try await outbox.enqueue(accepted)
        accepted.status = .accepted
        accepted.acceptedByDesktop = true
        accepted.mode = .steer(activeRunId: "run-7")
        try await outbox.update(accepted)
        let stored = String(decoding: try #require(try store.data(forKey: WorkspaceOutbox.storageKey)), as: UTF8.self)
        #expect(
            stored
                == #"{"version":2,"generation":2,"scopes":[{"desktopId":"desk-1","projectId":"app","sessionId":"a","order":["op-1","op-2"],"operations":{"op-1":{"state":"completed"},"op-2":{"state":"pending","entry":{"operationId":"op-2","status":"accepted","acceptedByDesktop":true,"mutation":{"mutationId":"m-op-2","text":"zwei","attachments":[]},"mode":{"kind":"steer","activeRunId":"run-7"},"createdAt":1000}}}}]}"#
        )
    }

    @Test func aCompletedOperationLocksOutStaleWriters() async throws {
        let outbox = try WorkspaceOutbox(store: InMemoryKeyValueStore())
        let original = entry("op-1")
        try await outbox.enqueue(original)
        let staleView = original  // a writer read the entry before it completed
        try await outbox.complete("op-1", in: chatA)
        var overwrite = staleView
        overwrite.status = .awaitingRetry
        await #expect(throws: WorkspaceOutboxError.operationCompleted("op-1")) { try await outbox.update(overwrite) }
        await #expect(throws: WorkspaceOutboxError.operationCompleted("op-1")) { try await outbox.enqueue(staleView) }
        #expect(await outbox.pendingEntries(in: chatA).isEmpty, "not resurrected")
        try await outbox.complete("op-1", in: chatA)  // completing again is harmless
    }

    @Test func theNextLaunchRemovesCompletedOperationsAndStartsANewGeneration() async throws {
        let store = InMemoryKeyValueStore()
        let first = try WorkspaceOutbox(store: store)
        #expect(await first.generation == 2, "an empty store starts at generation 1; this launch is 2")
        try await first.enqueue(entry("op-1"))
        try await first.enqueue(entry("op-2"))
        try await first.complete("op-1", in: chatA)
        let second = try WorkspaceOutbox(store: store)
        #expect(await second.generation == 3)
        #expect(await second.pendingEntries(in: chatA).map(\.operationId) == ["op-2"])
        let stored = String(decoding: try #require(try store.data(forKey: WorkspaceOutbox.storageKey)), as: UTF8.self)
        #expect(!stored.contains("op-1"), "completed operations are gone from storage")
        // In the new process the id is no longer locked: it is simply unknown.
        await #expect(throws: WorkspaceOutboxError.unknownOperation("op-1")) {
            try await second.complete("op-1", in: chatA)
        }
    }

    @Test func aChangeThatCannotBeSavedIsNotMade() async throws {
        let store = FailingKeyValueStore()
        let outbox = try WorkspaceOutbox(store: store)
        try await outbox.enqueue(entry("op-1"))
        store.failWrites(true)
        await #expect(throws: WorkspaceOutboxError.self) { try await outbox.enqueue(entry("op-2")) }
        await #expect(throws: WorkspaceOutboxError.self) { try await outbox.complete("op-1", in: chatA) }
        #expect(await outbox.pendingEntries(in: chatA).map(\.operationId) == ["op-1"])
        store.failWrites(false)
        try await outbox.complete("op-1", in: chatA)
    }

    @Test func unreadableStoredDataIsKeptAsideAndTheOutboxStartsClean() async throws {
        let store = InMemoryKeyValueStore()
        let garbage = Array(#"{"version":2,"generation":3,"scopes":[}"#.utf8)
        try store.set(garbage, forKey: WorkspaceOutbox.storageKey)
        let outbox = try WorkspaceOutbox(store: store)
        #expect(try store.data(forKey: WorkspaceOutbox.asideKey) == garbage)
        let problems = await outbox.loadProblems
        #expect(problems.count == 1)
        #expect(problems.first?.hasPrefix("The stored outbox could not be read (scopes[0]:") == true, "\(problems)")
        #expect(await outbox.chatsWithPendingEntries.isEmpty)
        try await outbox.enqueue(entry("op-1"))
    }

    @Test func readableEntriesSurviveABrokenOne() async throws {
        let store = InMemoryKeyValueStore()
        let first = try WorkspaceOutbox(store: store)
        try await first.enqueue(entry("op-1", "kept"))
        try await first.enqueue(entry("op-2", "broken"))
        try await first.enqueue(entry("op-3", "kept too"))
        var text = String(decoding: try #require(try store.data(forKey: WorkspaceOutbox.storageKey)), as: UTF8.self)
        text = text.replacingFirst(
            #""status":"queued","acceptedByDesktop":false,"mutation":{"mutationId":"m-op-2""#,
            with: #""status":"lost","acceptedByDesktop":false,"mutation":{"mutationId":"m-op-2""#)
        try store.set(Array(text.utf8), forKey: WorkspaceOutbox.storageKey)
        let second = try WorkspaceOutbox(store: store)
        #expect(await second.pendingEntries(in: chatA).map(\.mutation.text) == ["kept", "kept too"])
        let problems = await second.loadProblems
        #expect(
            problems == [
                "An outbox entry could not be read (scopes[0].operations[\"op-2\"].entry.status: unknown status \"lost\"); the stored data was kept under workspace-chat-local-outbox-v2.unreadable."
            ])
        #expect(try store.data(forKey: WorkspaceOutbox.asideKey) == Array(text.utf8))
    }

    @Test func composerRestoreDecision() {
        #expect(
            ComposerRestore.decide(rejectedText: "Fix it", reason: "run ended", currentDraft: " \n")
                == .restore(text: "Fix it", message: "The desktop did not take your message: run ended"))
        #expect(
            ComposerRestore.decide(rejectedText: "Fix it", reason: "run ended", currentDraft: "Fix it")
                == .restore(text: "Fix it", message: "The desktop did not take your message: run ended"))
        #expect(
            ComposerRestore.decide(rejectedText: "Fix it", reason: "run ended", currentDraft: "new idea")
                == .keepDraft(
                    message:
                        "The desktop did not take your message (run ended). Your new draft was kept; the message was: \"Fix it\""
                ))
    }
}

extension String {
    func replacingFirst(_ target: String, with replacement: String) -> String {
        guard let range = range(of: target) else { preconditionFailure("\(target) not found") }
        return replacingCharacters(in: range, with: replacement)
    }
}

/// Saves of the workspace outbox run on its serial executor, never on the cooperative pool.
@Suite("Workspace outbox executor", .timeLimit(.minutes(2)))
struct WorkspaceOutboxExecutorTests {
    /// A store that records, for each save, whether it ran on `executor`.
    private final class WhereSaved: KeyValueStore {
        let executor: SerialQueueExecutor
        let onExecutor = Locked<[Bool]>([])
        let values = InMemoryKeyValueStore()

        init(executor: SerialQueueExecutor) { self.executor = executor }

        func data(forKey key: String) throws -> [UInt8]? { try values.data(forKey: key) }

        func set(_ data: [UInt8], forKey key: String) throws {
            let isCurrent = executor.isCurrent
            onExecutor.withLock { $0.append(isCurrent) }
            try values.set(data, forKey: key)
        }

        func removeValue(forKey key: String) throws { try values.removeValue(forKey: key) }
    }

    @Test func everySaveRunsOnTheOutboxExecutor() async throws {
        let executor = SerialQueueExecutor(label: "test.workspace-outbox")
        let store = WhereSaved(executor: executor)
        let outbox = try WorkspaceOutbox(store: store, executor: executor)
        #expect(!executor.isCurrent)
        let entry = WorkspaceOutboxEntry(
            chat: chatA, operationId: "op-1", mutation: .init(mutationId: "m-1", text: "hi"), mode: .send,
            createdAt: 1_000)
        try await outbox.enqueue(entry)
        try await outbox.complete("op-1", in: chatA)
        // The launch's save ran on the caller's thread; the enqueue's and completion's on the queue.
        #expect(store.onExecutor.withLock { $0 } == [false, true, true])
    }
}
