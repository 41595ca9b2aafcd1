import Foundation
import SybilClient
import SybilCore
import SybilStore
import SybilTesting
import Testing

/// Seed 003: failed work is kept and never retried by itself. A file whose attach failed before
/// it was staged (unreadable here) survives a relaunch in the draft with its failed state and
/// why, so the person sees it; it can be retried from its path (the same upload id) or removed.
@MainActor
@Suite("A draft item that failed before staging survives a relaunch", .timeLimit(.minutes(2)))
struct AgentAttachmentFailedRelaunchTests {
    private func draft(_ directory: String, api: FakeAgentRoomAPI, prefix: String) async -> AgentAttachmentDraft {
        let draft = AgentAttachmentDraft(
            api: api, storage: AgentAttachmentFileStore(directory: directory, baseURL: AttachmentFixtures.baseURL),
            ids: SequentialIDGenerator(prefix: prefix))
        await draft.restore()
        draft.setCapability(AttachmentFixtures.capability())
        return draft
    }

    @Test func aFileThatFailedBeforeStagingComesBackFailedAndCanBeRetriedOrRemoved() async throws {
        try await AttachmentFixtures.withDirectory { directory in
            let path = directory + "/later.txt"
            let api = FakeAgentRoomAPI()
            let first = await draft(directory, api: api, prefix: "up")
            await first.select([.file(atPath: path, kind: .file, fileName: "later.txt", mimeType: "text/plain")])
            #expect(await ConditionWait.until { first.items.first?.failure != nil && first.activeItemId == nil })
            let reason = try #require(first.items.first?.failure?.description)
            let id = try #require(first.items.first?.id)
            await first.close()  // relaunch

            let secondAPI = FakeAgentRoomAPI()
            let second = await draft(directory, api: secondAPI, prefix: "relaunch")
            #expect(second.items.map(\.id) == [id], "the failed item is kept, not dropped")
            #expect(second.items.first?.failure == .earlier(reason), "with its failed state and why")
            #expect(second.items.first?.needsAttention == true)
            #expect(second.notes.isEmpty)
            #expect(second.activeItemId == nil && secondAPI.uploadedIds.isEmpty, "failed work is not retried by itself")

            // The file exists now: a retry reads it from its path with the same upload id.
            try Data("now it exists".utf8).write(to: URL(fileURLWithPath: path))
            second.retry(id)
            #expect(await ConditionWait.until { second.items.first?.isReady == true })
            #expect(secondAPI.uploadedIds == [id], "the same upload id")
            #expect(secondAPI.uploads.first?.bytes == Array("now it exists".utf8))
            await second.close()
        }
    }

    @Test func aRemovedFailedItemDoesNotComeBack() async throws {
        try await AttachmentFixtures.withDirectory { directory in
            let first = await draft(directory, api: FakeAgentRoomAPI(), prefix: "up")
            await first.select([
                .file(atPath: directory + "/missing.bin", kind: .file, fileName: "missing.bin", mimeType: nil)
            ])
            #expect(await ConditionWait.until { first.items.first?.failure != nil && first.activeItemId == nil })
            await first.close()
            let second = await draft(directory, api: FakeAgentRoomAPI(), prefix: "relaunch")
            #expect(second.items.map(\.fileName) == ["missing.bin"])
            await second.remove(try #require(second.items.first?.id))
            await second.close()
            let third = await draft(directory, api: FakeAgentRoomAPI(), prefix: "again")
            #expect(third.items.isEmpty)
            await third.close()
        }
    }

    @Test func theManifestKeepsWhyAndThePathOnlyWhereTheyBelong() throws {
        func manifest(_ item: String) -> [UInt8] {
            Array(#"{"version":1,"draftId":"d1","caption":"","items":[\#(item)]}"#.utf8)
        }
        let failed = try AgentAttachmentManifest.decode(
            manifest(
                #"{"uploadId":"u1","kind":"file","fileName":"a.txt","mimeType":"text/plain","stage":"failed","failure":"Unreadable.","path":"/tmp/a.txt"}"#
            ))
        #expect(failed.items.first?.failure == "Unreadable.")
        #expect(failed.items.first?.path == "/tmp/a.txt")
        #expect(try AgentAttachmentManifest.decode(failed.bytes) == failed, "written and read back")
        let refused = [
            #"{"uploadId":"u1","kind":"file","fileName":"a","mimeType":"text/plain","stage":"failed"}"#,
            #"{"uploadId":"u1","kind":"file","fileName":"a","mimeType":"text/plain","stage":"selected","failure":"x"}"#,
            #"{"uploadId":"u1","kind":"file","fileName":"a","mimeType":"text/plain","stage":"selected","path":"rel/a"}"#,
            #"{"uploadId":"u1","kind":"file","fileName":"a","mimeType":"t","size":1,"stage":"staged","path":"/a"}"#,
            #"{"uploadId":"u1","kind":"file","fileName":"a","mimeType":"t","stage":"failed","failure":"\#(String(repeating: "x", count: 2_049)))"}"#,
        ]
        for item in refused {
            #expect(throws: JSONError.self, "\(item)") { try AgentAttachmentManifest.decode(manifest(item)) }
        }
    }
}
