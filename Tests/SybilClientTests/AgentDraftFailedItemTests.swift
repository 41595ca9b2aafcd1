import Foundation
import SybilClient
import SybilCore
import SybilTesting
import SybilWire
import Testing

/// Seed 003 "ROOT attachments": per-item error and removal, removal cancels local work and
/// keeps the server original, the draft survives relaunch, failed work is not retried
/// automatically. A failed item never holds text: only work under way holds a send.
@MainActor
@Suite("A failed attachment never blocks the Agent room's draft", .timeLimit(.minutes(2)))
struct AgentDraftFailedItemTests {
    private func store(_ directory: String) -> AgentAttachmentFileStore {
        AgentAttachmentFileStore(directory: directory, baseURL: AttachmentFixtures.baseURL)
    }

    private func draft(_ directory: String, api: FakeAgentRoomAPI, prefix: String = "up") async
        -> AgentAttachmentDraft
    {
        let draft = AgentAttachmentDraft(
            api: api, storage: store(directory), ids: SequentialIDGenerator(prefix: prefix))
        await draft.restore()
        draft.setCapability(AttachmentFixtures.capability())
        return draft
    }

    private func text(_ name: String) -> AgentAttachmentSource {
        .bytes(Array("content of \(name)".utf8), kind: .file, fileName: name, mimeType: "text/plain")
    }

    /// A "PNG" whose header is not one: refused by validation before anything is uploaded.
    private func badImage(_ name: String) -> AgentAttachmentSource {
        .bytes(Array("not a png".utf8), kind: .file, fileName: name, mimeType: "image/png")
    }

    private func settled(_ draft: AgentAttachmentDraft) async -> Bool {
        await ConditionWait.until { draft.activeItemId == nil && !draft.items.contains(where: \.isInProgress) }
    }

    private let refused = AgentRoomError.rejected(
        status: 409, error: APIErrorBody(message: "Refused: upload_conflict.", code: "upload_conflict", details: nil),
        retryAfterSeconds: nil)

    @Test func perItemErrorNeverHoldsTextTheFailedItemIsLeftOutAndStaysInTheDraft() async throws {
        try await AttachmentFixtures.withDirectory { directory in
            let api = FakeAgentRoomAPI()
            let draft = await draft(directory, api: api)
            await draft.select([badImage("bad.png"), text("notes.txt")])
            #expect(await settled(draft))
            #expect(draft.items.map(\.stateSummary).first?.hasPrefix("failed: ") == true)
            #expect(draft.items[1].stateSummary == "uploaded")
            #expect(draft.canSend(caption: "plain text"), "a failed item never blocks text")

            await draft.updateCaption("plain text")
            let handoff = try await draft.prepareHandoff()
            #expect(handoff.caption == "plain text")
            #expect(handoff.attachments.map(\.fileName) == ["notes.txt"], "only uploaded items go")
            #expect(handoff.leftOut == ["bad.png"])
            await draft.completeHandoff(handoff.draftId)
            #expect(draft.draftId != handoff.draftId, "a new draft identity")
            #expect(draft.caption.isEmpty)
            #expect(draft.items.map(\.fileName) == ["bad.png"], "the failed item waits to be retried or removed")
            #expect(draft.items.first?.failure != nil)
            #expect(api.uploadedIds == ["up-3"], "nothing retried by itself")
        }
    }

    @Test func onlyWorkStillUnderWayHoldsASendAndSaysWhich() async throws {
        try await AttachmentFixtures.withDirectory { directory in
            let uploads = TestGate()
            let api = FakeAgentRoomAPI(uploadGate: uploads)
            let draft = await draft(directory, api: api)
            await draft.updateCaption("look")
            await draft.select([text("big.log")])
            #expect(await ConditionWait.until { uploads.waiting == 1 })
            #expect(!draft.canSend, "an upload under way holds the send that includes it")
            do throws(AgentAttachmentDraftError) {
                _ = try await draft.prepareHandoff()
                Issue.record("an upload under way must hold the send")
            } catch {
                #expect(error == .notReady(["big.log"]))
                #expect(error.description.contains("big.log"))
            }
            uploads.release()
            #expect(await settled(draft))
            #expect(draft.canSend)
        }
    }

    @Test func aFailedItemAloneWithABlankCaptionHasNothingToSend() async throws {
        try await AttachmentFixtures.withDirectory { directory in
            let draft = await draft(directory, api: FakeAgentRoomAPI())
            await draft.select([badImage("bad.png")])
            #expect(await settled(draft))
            #expect(!draft.canSend(caption: " "))
            do throws(AgentAttachmentDraftError) {
                _ = try await draft.prepareHandoff()
                Issue.record("nothing to send")
            } catch {
                #expect(error == .nothingToSend(waiting: ["bad.png"]))
                #expect(!error.description.contains("Wait until"), "it is not waiting for anything")
            }
        }
    }

    @Test func removalCancelsLocalWorkKeepsTheServerOriginalAndUnblocks() async throws {
        try await AttachmentFixtures.withDirectory { directory in
            let api = FakeAgentRoomAPI()
            api.failNextUpload(of: "up-2", with: refused)
            let draft = await draft(directory, api: api)
            await draft.select([text("a.txt"), text("b.txt")])
            #expect(await settled(draft))
            #expect(draft.items.map(\.needsAttention) == [true, false])
            #expect(try await store(directory).stagedUploadIds() == ["up-2"], "failed bytes stay staged for retry")

            await draft.removeAllItems()
            #expect(draft.items.isEmpty)
            #expect(try await store(directory).stagedUploadIds() == [], "local work and staged bytes are gone")
            #expect(api.uploadedIds == ["up-2", "up-3"], "no call asks the server to delete an original")
            await draft.updateCaption("now text")
            #expect(draft.canSend)

            await draft.clear()
            #expect(draft.caption.isEmpty && draft.items.isEmpty)
            let saved = try AgentAttachmentManifest.decode(try #require(try await store(directory).readManifest()))
            #expect(saved.items.isEmpty && saved.caption.isEmpty, "the cleared draft is saved")
        }
    }

    @Test func theDraftManifestAndStagedBytesSurviveRelaunchAndAFailedUploadWaitsForRetry() async throws {
        try await AttachmentFixtures.withDirectory { directory in
            let api = FakeAgentRoomAPI()
            api.failNextUpload(of: "up-2", with: refused)
            let first = await draft(directory, api: api)
            await first.updateCaption("see attached")
            await first.select([text("report.txt")])
            #expect(await settled(first))
            #expect(first.items.first?.failure != nil)
            // A message sent meanwhile leaves the failed item in the new draft, saved.
            let handoff = try await first.prepareHandoff()
            await first.completeHandoff(handoff.draftId)
            await first.updateCaption("next time")
            await first.close()

            let secondAPI = FakeAgentRoomAPI()
            let second = await draft(directory, api: secondAPI, prefix: "relaunch")
            #expect(second.draftId == first.draftId)
            #expect(second.caption == "next time")
            #expect(second.items.map(\.id) == ["up-2"])
            #expect(second.items.first?.state == .interrupted, "it waits for an explicit retry")
            #expect(secondAPI.uploadedIds.isEmpty, "failed work is not retried automatically")
            second.retry("up-2")
            #expect(await ConditionWait.until { second.items.first?.isReady == true })
            #expect(secondAPI.uploadedIds == ["up-2"], "the same upload id")
        }
    }

    @Test func aFinalRefusalNamesTheFrontEndsDiscard() {
        let refusal = AgentOutboxFailure(kind: .refused, message: "Too large.", status: 413, code: "too_large")
        let text = AgentRefusalAdvice.describe(refusal, discard: "press d")
        #expect(text.hasSuffix("Sending it again cannot succeed; Discard it (press d) and write a new message."))
        #expect(text.hasPrefix("Too large (HTTP 413, too_large)."))
        #expect(!text.contains("Discard it and write"), "the generic ending is replaced, not repeated")
        let interrupted = AgentOutboxFailure(kind: .interrupted, message: "No answer.")
        #expect(AgentRefusalAdvice.describe(interrupted, discard: "press d") == interrupted.description)
    }
}
