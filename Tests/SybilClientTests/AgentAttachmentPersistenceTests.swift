import Foundation
import SybilClient
import SybilCore
import SybilStore
import SybilTesting
import SybilWire
import Testing

/// The saved draft (SPEC §6.1): relaunch, storage failures, the handoff to the outbox and its
/// crash recovery, base-URL scoping and the staging bounds. A "crash" is a draft abandoned
/// mid-way and a new one opened on the same files.
@MainActor
@Suite("Relaunch, storage failure blocks, handoff crash recovery", .timeLimit(.minutes(2)))
struct AgentAttachmentPersistenceTests {
    private func store(_ directory: String, _ baseURL: URL = AttachmentFixtures.baseURL) -> AgentAttachmentFileStore {
        AgentAttachmentFileStore(directory: directory, baseURL: baseURL)
    }

    private func draft(
        _ storage: any AgentAttachmentStorage, api: FakeAgentRoomAPI, prefix: String = "up"
    ) async -> AgentAttachmentDraft {
        let draft = AgentAttachmentDraft(api: api, storage: storage, ids: SequentialIDGenerator(prefix: prefix))
        await draft.restore()
        draft.setCapability(AttachmentFixtures.capability())
        return draft
    }

    private func text(_ name: String) -> AgentAttachmentSource {
        .bytes(Array("content of \(name)".utf8), kind: .file, fileName: name, mimeType: "text/plain")
    }

    private func allReady(_ draft: AgentAttachmentDraft) async -> Bool {
        await ConditionWait.until { draft.items.allSatisfy(\.isReady) && draft.activeItemId == nil }
    }

    @Test func aRelaunchRestoresReadyItemsAndOffersRetryForStagedOnesWithTheSameId() async throws {
        try await AttachmentFixtures.withDirectory { directory in
            let uploads = TestGate()
            let api = FakeAgentRoomAPI(uploadGate: uploads)
            let first = await draft(store(directory), api: api)
            await first.updateCaption("Look at these")
            await first.select([text("a.txt"), text(".b.log"), text("c.txt")])
            uploads.release()
            #expect(await ConditionWait.until { first.items[0].isReady && uploads.waiting == 1 })
            #expect(first.items[1].state == .uploading(progress: nil))
            #expect(first.items[2].state == .preparing)
            let readyA = try #require(first.items[0].attachment)
            await first.close()  // the app dies here

            let secondAPI = FakeAgentRoomAPI()
            let second = await draft(store(directory), api: secondAPI, prefix: "relaunch")
            #expect(second.caption == "Look at these")
            #expect(second.items.map(\.id) == ["up-2", "up-3"])
            #expect(second.items[0].state == .ready(readyA), "ready items come back ready")
            #expect(second.items[1].state == .interrupted, "a staged upload waits for an explicit retry")
            #expect(second.items[1].fileName == ".b.log")
            #expect(
                second.notes == [
                    "c.txt was not prepared before Sybil closed (still preparing, or it failed); select it again."
                ])
            #expect(second.activeItemId == nil && secondAPI.uploadedIds.isEmpty, "nothing restarts by itself")

            second.retry("up-3")
            #expect(await allReady(second))
            #expect(secondAPI.uploadedIds == ["up-3"], "the same upload id")
            #expect(secondAPI.uploads.first?.bytes == Array("content of .b.log".utf8), "from the staged bytes")
            #expect(try await store(directory).stagedUploadIds() == [], "staged copies go once uploaded")
            let saved = try AgentAttachmentManifest.decode(try #require(try await store(directory).readManifest()))
            #expect(saved.items.map(\.stage) == [.ready, .ready])
            #expect(saved.caption == "Look at these")
        }
    }

    @Test func aStorageFailureBlocksTheStepAndSendingButKeepsTheDraft() async throws {
        try await AttachmentFixtures.withDirectory { directory in
            let storage = SwitchableAttachmentStorage(store(directory))
            let api = FakeAgentRoomAPI()
            let draft = await draft(storage, api: api)
            await draft.select([text("a.txt")])
            await draft.updateCaption("keep me")
            #expect(await allReady(draft))
            #expect(draft.canSend)

            storage.setFailing(true)
            await draft.updateCaption("keep me too")
            #expect(draft.storageProblem?.contains("No space left on device") == true)
            #expect(!draft.canSend)
            await #expect(throws: AgentAttachmentDraftError.self) { try await draft.prepareHandoff() }
            #expect(!draft.isHandingOff)
            await draft.select([text("b.txt")])
            #expect(draft.items.map(\.fileName) == ["a.txt"], "a selection that cannot be saved is not added")
            #expect(draft.caption == "keep me too", "nothing typed is dropped")
            #expect(api.uploadedIds == ["up-2"])

            storage.setFailing(false)
            #expect(await draft.retrySaving())
            #expect(draft.storageProblem == nil && draft.canSend)
            let handoff = try await draft.prepareHandoff()
            #expect(handoff.caption == "keep me too")
            #expect(handoff.attachments.map(\.uploadId) == ["up-2"])
        }
    }

    @Test func aStagingFailureFailsTheItemBeforeAnyUpload() async throws {
        try await AttachmentFixtures.withDirectory { directory in
            let storage = SwitchableAttachmentStorage(store(directory))
            let api = FakeAgentRoomAPI()
            let reads = TestGate()
            let draft = await draft(storage, api: api)
            await draft.select([AttachmentFixtures.source("a.txt", [1, 2], gate: reads)])
            #expect(await ConditionWait.until { reads.waiting == 1 })
            storage.setFailing(true)
            reads.release()
            #expect(await ConditionWait.until { draft.items.first?.failure != nil && draft.activeItemId == nil })
            guard case .storage? = draft.items.first?.failure else {
                Issue.record("expected a storage failure")
                return
            }
            #expect(api.uploadedIds.isEmpty)
            storage.setFailing(false)
            reads.release()
            draft.retry("up-2")
            #expect(await allReady(draft), "a retry prepares it again from the pick")
        }
    }

    @Test func aCrashDuringTheHandoffIsRecoveredWithOneCallAndNoSecondSend() async throws {
        try await AttachmentFixtures.withDirectory { directory in
            let outbox = Locked<[String: AgentAttachmentHandoff]>([:])
            let isInOutbox: (String) async -> Bool = { id in outbox.withLock { $0[id] != nil } }
            let first = await draft(store(directory), api: FakeAgentRoomAPI())
            await first.updateCaption("")
            await first.select([text("a.txt"), text("b.txt")])
            #expect(await allReady(first))
            let handoff = try await first.prepareHandoff()
            #expect(handoff.caption == "" && handoff.attachments.map(\.uploadId) == ["up-2", "up-3"])
            #expect(first.isHandingOff && !first.canSelect)
            outbox.withLock { $0[handoff.draftId] = handoff }  // the outbox saved the message…
            // …and the app died before completeHandoff.

            let second = await draft(store(directory), api: FakeAgentRoomAPI(), prefix: "second")
            #expect(second.draftId == handoff.draftId)
            #expect(second.items.compactMap(\.attachment) == handoff.attachments)
            #expect(await second.recoverHandoff(isInOutbox: isInOutbox))
            #expect(second.items.isEmpty && second.caption.isEmpty)
            #expect(second.draftId != handoff.draftId, "a new draft begins")
            #expect(try await store(directory).readManifest() == nil)
            #expect(try await store(directory).stagedUploadIds() == [])

            let third = await draft(store(directory), api: FakeAgentRoomAPI(), prefix: "third")
            #expect(third.items.isEmpty, "the sent draft does not come back")
            #expect(!(await third.recoverHandoff(isInOutbox: isInOutbox)))
            #expect(outbox.withLock { $0.count } == 1, "one message in the outbox")
        }
    }

    @Test func aCrashBeforeTheOutboxSavedKeepsTheDraftWithTheSameIdentity() async throws {
        try await AttachmentFixtures.withDirectory { directory in
            let first = await draft(store(directory), api: FakeAgentRoomAPI())
            await first.select([text("a.txt")])
            #expect(await allReady(first))
            let handoff = try await first.prepareHandoff()
            // The app died before the outbox saved anything.

            let second = await draft(store(directory), api: FakeAgentRoomAPI(), prefix: "second")
            #expect(!(await second.recoverHandoff(isInOutbox: { _ in false })))
            #expect(second.items.compactMap(\.attachment) == handoff.attachments)
            let again = try await second.prepareHandoff()
            #expect(again == handoff, "the same identity, so the outbox can tell it is one message")
            await second.completeHandoff("some-other-draft")
            #expect(second.isHandingOff, "completing another draft's handoff changes nothing")
            await second.completeHandoff(again.draftId)
            #expect(second.items.isEmpty && !second.isHandingOff)
        }
    }

    @Test func theDraftIsScopedToTheBaseURL() async throws {
        let scope = AgentAttachmentFileStore.scope
        #expect(scope(URL(string: "http://127.0.0.1:8799/api")!) == scope(URL(string: "http://127.0.0.1:8799/api/")!))
        #expect(scope(URL(string: "HTTP://Example.COM/api")!) == scope(URL(string: "http://example.com/api")!))
        #expect(scope(URL(string: "https://example.com:443/api")!) == scope(URL(string: "https://example.com/api")!))
        #expect(scope(URL(string: "http://127.0.0.1:8799/api")!) != scope(URL(string: "http://127.0.0.1:8799")!))
        #expect(scope(URL(string: "http://127.0.0.1:8799")!) != scope(URL(string: "http://127.0.0.1:8800")!))
        try await AttachmentFixtures.withDirectory { directory in
            let api = store(directory, URL(string: "http://127.0.0.1:8799/api")!)
            let bare = store(directory, URL(string: "http://127.0.0.1:8799")!)
            try await api.writeManifest(Array("{}".utf8))
            #expect(try await bare.readManifest() == nil)
            #expect(try await store(directory, URL(string: "http://127.0.0.1:8799/api/")!).readManifest() != nil)
        }
    }

    @Test func theManifestHoldsNoBytesAndIsReadStrictly() async throws {
        try await AttachmentFixtures.withDirectory { directory in
            let draft = await draft(store(directory), api: FakeAgentRoomAPI(uploadGate: TestGate()))
            let marker = "UNIQUE-MARKER-" + String(repeating: "x", count: 100)
            await draft.select([.bytes(Array(marker.utf8), kind: .file, fileName: "m.txt")])
            #expect(await ConditionWait.until { draft.items.first?.state == .uploading(progress: nil) })
            let bytes = try #require(try await store(directory).readManifest())
            #expect(!String(decoding: bytes, as: UTF8.self).contains("UNIQUE-MARKER"), "bytes stay in staged files")
            let manifest = try AgentAttachmentManifest.decode(bytes)
            #expect(manifest.items.first?.stage == .staged && manifest.items.first?.size == Int64(marker.utf8.count))
            await draft.close()
        }
        func rejects(_ json: String) -> Bool {
            (try? AgentAttachmentManifest.decode(Array(json.utf8))) == nil
        }
        let item = #"{"uploadId":"u-1","kind":"file","fileName":"a","mimeType":"text/plain","stage":"selected"}"#
        #expect(!rejects(#"{"version":1,"draftId":"d-1","caption":"","items":[\#(item)]}"#))
        #expect(rejects(#"{"version":2,"draftId":"d-1","caption":"","items":[]}"#))
        #expect(rejects(#"{"version":1,"draftId":"../etc","caption":"","items":[]}"#))
        #expect(rejects(#"{"version":1,"draftId":"d-1","caption":"","items":[\#(item),\#(item)]}"#), "repeated id")
        let nine = (1...9).map { item.replacingOccurrences(of: "u-1", with: "u-\($0)") }.joined(separator: ",")
        #expect(rejects(#"{"version":1,"draftId":"d-1","caption":"","items":[\#(nine)]}"#), "more than 8 items")
        let ready = item.replacingOccurrences(of: "selected", with: "ready")
        #expect(rejects(#"{"version":1,"draftId":"d-1","caption":"","items":[\#(ready)]}"#), "ready needs a descriptor")
        let staged = item.replacingOccurrences(of: "selected", with: "staged")
        #expect(rejects(#"{"version":1,"draftId":"d-1","caption":"","items":[\#(staged)]}"#), "staged needs a size")
        let tooBig = staged.replacingOccurrences(of: #""stage""#, with: #""size":8388609,"stage""#)
        #expect(rejects(#"{"version":1,"draftId":"d-1","caption":"","items":[\#(tooBig)]}"#), "over 8 MiB")
        let exact = staged.replacingOccurrences(of: #""stage""#, with: #""size":8388608,"stage""#)
        #expect(!rejects(#"{"version":1,"draftId":"d-1","caption":"","items":[\#(exact)]}"#), "exactly 8 MiB")
    }

    @Test func anUnreadableManifestIsKeptAsideAndTheDraftStartsEmpty() async throws {
        try await AttachmentFixtures.withDirectory { directory in
            let files = store(directory)
            try await files.writeManifest(Array(#"{"version":1,"#.utf8))
            let draft = await draft(files, api: FakeAgentRoomAPI())
            #expect(draft.items.isEmpty)
            #expect(draft.notes.first?.hasPrefix("The saved draft could not be read") == true)
            let aside = try #require(try AtomicFile.read(files.root + "/manifest.unreadable.json"))
            #expect(aside == Array(#"{"version":1,"#.utf8))
        }
    }

    @Test func stagedFilesHoldAtMost8MiBEachAnd32MiBPerDraft() async throws {
        try await AttachmentFixtures.withDirectory { directory in
            let files = store(directory)
            let eight = [UInt8](repeating: 3, count: 8 << 20)
            for id in ["s-1", "s-2", "s-3"] { try await files.stage(eight, uploadId: id) }
            await #expect(throws: (any Error).self, "8 MiB + 1 in one file") {
                try await files.stage(eight + [3], uploadId: "s-4")
            }
            try await files.stage(eight, uploadId: "s-4")  // 32 MiB exactly
            try await files.stage(eight, uploadId: "s-4")  // staging again replaces, not adds
            await #expect(throws: (any Error).self, "32 MiB + 1 in the draft") {
                try await files.stage([3], uploadId: "s-5")
            }
            try await files.removeStaged(uploadId: "s-1")
            try await files.stage([3], uploadId: "s-5")
            #expect(try await files.stagedUploadIds() == ["s-2", "s-3", "s-4", "s-5"])
            await #expect(throws: (any Error).self, "an id that is not a plain name") {
                try await files.stage([3], uploadId: "../escape")
            }
        }
    }
}
