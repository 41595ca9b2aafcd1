import SybilClient
import SybilCore
import SybilStore
import SybilTesting
import SybilWire
import Testing

/// The draft (SPEC §6.1): capability gating, one preparation or upload at a time in selection
/// order, removal cancelling local work, suspension, failures kept whole and retried only when
/// asked.
@MainActor
@Suite("Attachment capability and metadata, one-at-a-time, cancellation on removal", .timeLimit(.minutes(2)))
struct AgentAttachmentDraftTests {
    private func makeDraft(
        _ directory: String, api: FakeAgentRoomAPI, capability: AgentRoomDescriptor.Attachments? = nil
    ) async -> AgentAttachmentDraft {
        let storage = AgentAttachmentFileStore(directory: directory, baseURL: AttachmentFixtures.baseURL)
        let draft = AgentAttachmentDraft(api: api, storage: storage, ids: SequentialIDGenerator(prefix: "up"))
        await draft.restore()
        draft.setCapability(capability)
        return draft
    }

    private func text(_ name: String, _ content: String = "hello") -> AgentAttachmentSource {
        .bytes(Array(content.utf8), kind: .file, fileName: name, mimeType: "text/plain")
    }

    private func allReady(_ draft: AgentAttachmentDraft) async -> Bool {
        await ConditionWait.until { draft.items.allSatisfy(\.isReady) && draft.activeItemId == nil }
    }

    private func uploadError(_ status: Int, _ code: String, details: JSONObject? = nil, retryAfter: Int? = nil)
        -> AgentRoomError
    {
        .rejected(
            status: status, error: APIErrorBody(message: "Refused: \(code).", code: code, details: details),
            retryAfterSeconds: retryAfter)
    }

    @Test func selectionNeedsTheV1CapabilityAndAttachmentsAvailableButItemsAreKept() async throws {
        try await AttachmentFixtures.withDirectory { directory in
            let api = FakeAgentRoomAPI()
            let draft = await makeDraft(directory, api: api)
            #expect(!draft.canSelect, "no capability: text-only")
            await draft.select([text("a.txt")])
            #expect(draft.items.isEmpty)
            #expect(draft.notes == ["Attachments are not available right now; nothing was added."])

            draft.setCapability(AttachmentFixtures.capability())
            #expect(draft.canSelect)
            await draft.select([text("a.txt"), text(".env", "KEY=1")])
            #expect(await allReady(draft))
            let descriptors = draft.items.compactMap(\.attachment)
            #expect(descriptors.map(\.fileName) == ["a.txt", ".env"], "selection order and leading dots kept")
            #expect(descriptors.map(\.workspacePath) == ["uploads/a.txt", "uploads/.env"])
            #expect(descriptors.map(\.uploadId) == ["up-2", "up-3"], "ids from the injected generator, in order")

            draft.setAttachmentsAvailable(false)  // a 503 open_proxy_unavailable or a close 4503
            #expect(!draft.canSelect)
            await draft.select([text("b.txt")])
            #expect(draft.items.map(\.fileName) == ["a.txt", ".env"])
            #expect(draft.items.compactMap(\.attachment) == descriptors, "descriptors are kept")
            #expect(draft.canSend(caption: ""), "ready attachments can still be sent")

            draft.setCapability(nil)
            #expect(draft.items.compactMap(\.attachment) == descriptors)
            draft.setCapability(AttachmentFixtures.capability())
            draft.setAttachmentsAvailable(true)  // a reconnect found them supported
            #expect(draft.canSelect)
        }
    }

    @Test func onlyAVersion1DescriptorOffersAttachmentsWithLimitsClampedToV1() async throws {
        func capability(_ attachments: String) throws -> AgentRoomDescriptor.Attachments? {
            let json = #"{"room":{"roomId":"r","title":"Sybil Agent"},"capabilities":{"attachments":\#(attachments)}}"#
            return try AgentRoomDescriptor.decode(JSONReader().parse(Array(json.utf8)), at: .root).attachments
        }
        let generous =
            #"{"maxFiles":20,"maxTotalBytes":1073741824,"maxImageBytes":1073741824,"maxFileBytes":1073741824,"maxPixels":100000000,"maxAxisPixels":65536}"#
        try await AttachmentFixtures.withDirectory { directory in
            let draft = await makeDraft(directory, api: FakeAgentRoomAPI())
            draft.setCapability(try capability(#"{"version":2,"limits":\#(generous)}"#))
            #expect(!draft.canSelect && draft.limits == nil, "another version keeps the room text-only")
            draft.setCapability(try capability(#"{"version":1}"#))
            #expect(!draft.canSelect, "malformed: text-only")
            draft.setCapability(try capability(#"{"version":1,"limits":\#(generous)}"#))
            #expect(draft.canSelect)
            #expect(draft.limits == .v1, "advertised limits above the ceilings are clamped")
        }
    }

    @Test func anUploadRefusedForTheOpenProxyDisablesSelectionAndKeepsTheServersWords() async throws {
        try await AttachmentFixtures.withDirectory { directory in
            let api = FakeAgentRoomAPI()
            api.failNextUpload(of: "up-2", with: uploadError(503, "open_proxy_unavailable", retryAfter: 30))
            let draft = await makeDraft(directory, api: api, capability: AttachmentFixtures.capability())
            await draft.select([text("a.txt")])
            #expect(await ConditionWait.until { draft.items.first?.failure != nil })
            let failure = try #require(draft.items.first?.failure)
            #expect(failure.code == "open_proxy_unavailable" && failure.status == 503)
            #expect(failure.retryAfterSeconds == 30)
            #expect(!draft.attachmentsAvailable && !draft.canSelect)
            #expect(draft.items.count == 1, "the item stays, waiting for a retry")
        }
    }

    @Test(arguments: [409, 413, 429, 507])
    func serverFailuresKeepCodeMessageQuotaAndRetryAfterAndAreRetriedOnlyWhenAsked(status: Int) async throws {
        try await AttachmentFixtures.withDirectory { directory in
            let api = FakeAgentRoomAPI()
            let error: AgentRoomError =
                switch status {
                case 409: uploadError(409, "upload_conflict")
                case 413: uploadError(413, "too_large", details: JSONObject([JSONMember("limitBytes", 8_388_608)]))
                case 429:
                    uploadError(
                        429, "rate_limited", details: JSONObject([JSONMember("retryAfterSeconds", 30)]))
                default:
                    uploadError(
                        507, "quota_exceeded",
                        details: JSONObject([
                            JSONMember("quota", ["usedBytes": 1_073_741_824, "limitBytes": 1_073_741_824])
                        ]))
                }
            api.failNextUpload(of: "up-2", with: error)
            let draft = await makeDraft(directory, api: api, capability: AttachmentFixtures.capability())
            await draft.select([text("build.log")])
            #expect(await ConditionWait.until { draft.items.first?.failure != nil && draft.activeItemId == nil })
            let failure = try #require(draft.items.first?.failure)
            #expect(failure == .upload(error), "the server's answer is kept whole")
            #expect(failure.status == status)
            switch status {
            case 409: #expect(failure.code == "upload_conflict")
            case 413: #expect(failure.code == "too_large" && failure.limitBytes == 8_388_608)
            case 429: #expect(failure.code == "rate_limited" && failure.retryAfterSeconds == 30)
            default:
                #expect(failure.quota == AgentQuota(usedBytes: 1_073_741_824, limitBytes: 1_073_741_824))
            }
            #expect(failure.description.contains("Refused: "))
            #expect(api.uploadedIds == ["up-2"], "the draft is idle: nothing retries by itself")
            #expect(draft.canSend(caption: "x"), "a failed item never holds text; it is left out")
            #expect(!draft.canSend(caption: ""), "alone it sends nothing")

            draft.retry("up-2")
            #expect(await allReady(draft))
            #expect(api.uploadedIds == ["up-2", "up-2"], "the retry uses the same upload id")
            #expect(draft.canSend(caption: ""))
        }
    }

    @Test func anUploadAnswerForOtherBytesIsAFailure() async throws {
        try await AttachmentFixtures.withDirectory { directory in
            let api = FakeAgentRoomAPI()
            api.answerNextUpload(
                of: "up-2",
                with: AgentAttachment(
                    uploadId: "up-2", fileName: "a.txt", mimeType: "text/plain", size: 5,
                    sha256: String(repeating: "0", count: 64)))
            let draft = await makeDraft(directory, api: api, capability: AttachmentFixtures.capability())
            await draft.select([text("a.txt")])
            #expect(await ConditionWait.until { draft.items.first?.failure != nil })
            guard case .upload(.malformedAnswer(let reason))? = draft.items.first?.failure else {
                Issue.record("expected a malformed answer, got \(String(describing: draft.items.first?.state))")
                return
            }
            #expect(reason.contains("sha256"))
        }
    }

    @Test func onePreparationOrUploadRunsAtATimeInSelectionOrder() async throws {
        try await AttachmentFixtures.withDirectory { directory in
            let probe = ActivityProbe()
            let uploads = TestGate()
            let reads = TestGate()
            let api = FakeAgentRoomAPI(probe: probe, uploadGate: uploads)
            let draft = await makeDraft(directory, api: api, capability: AttachmentFixtures.capability())
            await draft.select(
                ["a.txt", "b.txt", "c.txt"].map {
                    AttachmentFixtures.source($0, Array($0.utf8), probe: probe, gate: reads)
                })
            let expected = [
                ("read a.txt", reads), ("upload up-2", uploads), ("read b.txt", reads), ("upload up-3", uploads),
                ("read c.txt", reads), ("upload up-4", uploads),
            ]
            for (step, gate) in expected {
                #expect(await ConditionWait.until { gate.waiting == 1 }, "waiting for \(step)")
                #expect(probe.events.last == "begin " + step)
                #expect(probe.running == 1, "only \(step) runs")
                gate.release()
            }
            #expect(await allReady(draft))
            #expect(probe.maxRunning == 1)
            #expect(draft.items.map(\.id) == ["up-2", "up-3", "up-4"])
        }
    }

    @Test func eightFilesAreAddedAndTheNinthIsNot() async throws {
        try await AttachmentFixtures.withDirectory { directory in
            let draft = await makeDraft(directory, api: FakeAgentRoomAPI(), capability: AttachmentFixtures.capability())
            await draft.select((1...7).map { text("f\($0).txt") })
            #expect(draft.items.count == 7 && draft.canSelect)
            await draft.select([text("f8.txt"), text("f9.txt")])
            #expect(draft.items.count == 8)
            #expect(draft.items.last?.fileName == "f8.txt")
            #expect(!draft.canSelect)
            #expect(
                draft.notes == ["f9.txt was not added: a message can carry at most 8 files; send these first."])
            #expect(await allReady(draft))
        }
    }

    @Test func thirtyTwoMiBInAllThenOneByteMoreFails() async throws {
        try await AttachmentFixtures.withDirectory { directory in
            let api = FakeAgentRoomAPI()
            let draft = await makeDraft(directory, api: api, capability: AttachmentFixtures.capability())
            let eight = [UInt8](repeating: 7, count: 8 << 20)
            await draft.select((1...4).map { AttachmentFixtures.source("part\($0).bin", eight) })
            #expect(await allReady(draft))
            await draft.select([AttachmentFixtures.source("one-more.bin", [1])])
            #expect(await ConditionWait.until { draft.items.last?.failure != nil })
            #expect(
                draft.items.last?.failure
                    == .rejected(.totalTooLarge(fileName: "one-more.bin", total: (32 << 20) + 1, limit: 32 << 20)))
            #expect(api.uploadedIds.count == 4, "nothing over the total is uploaded")

            await draft.remove("up-2")
            draft.retry("up-6")
            #expect(await allReady(draft), "after a removal the same item fits")
        }
    }

    @Test func removalCancelsLocalWorkAndDropsTheReferenceWithoutAServerCall() async throws {
        try await AttachmentFixtures.withDirectory { directory in
            let reads = TestGate()
            let uploads = TestGate()
            let api = FakeAgentRoomAPI(uploadGate: uploads)
            let storage = AgentAttachmentFileStore(directory: directory, baseURL: AttachmentFixtures.baseURL)
            let draft = AgentAttachmentDraft(api: api, storage: storage, ids: SequentialIDGenerator(prefix: "up"))
            await draft.restore()
            draft.setCapability(AttachmentFixtures.capability())

            // Removed while preparing: the read is cancelled.
            await draft.select([AttachmentFixtures.source("slow.txt", [1, 2, 3], gate: reads)])
            #expect(await ConditionWait.until { reads.waiting == 1 })
            await draft.remove("up-2")
            #expect(draft.items.isEmpty)
            #expect(await ConditionWait.until { reads.cancelled == 1 && draft.activeItemId == nil })
            #expect(try await storage.stagedUploadIds() == [])

            // Removed while uploading: the upload is cancelled and its staged copy deleted.
            await draft.select([text("b.txt")])
            #expect(await ConditionWait.until { uploads.waiting == 1 })
            #expect(try await storage.stagedUploadIds() == ["up-3"])
            await draft.remove("up-3")
            #expect(await ConditionWait.until { uploads.cancelled == 1 && draft.activeItemId == nil })
            #expect(draft.items.isEmpty)
            #expect(try await storage.stagedUploadIds() == [])

            // Removed when ready: only the reference goes.
            uploads.release()
            await draft.select([text("c.txt")])
            #expect(await allReady(draft))
            await draft.remove("up-4")
            #expect(draft.items.isEmpty)
            #expect(api.uploadedIds == ["up-3", "up-4"], "no other call reached the server")
            let saved = try AgentAttachmentManifest.decode(try #require(try await storage.readManifest()))
            #expect(saved.items.isEmpty)
        }
    }

    @Test func uploadsWaitWhileTheRoomIsStoppedAndContinueWithTheSameId() async throws {
        try await AttachmentFixtures.withDirectory { directory in
            let uploads = TestGate()
            let api = FakeAgentRoomAPI(uploadGate: uploads)
            let draft = await makeDraft(directory, api: api, capability: AttachmentFixtures.capability())
            await draft.select([text("a.txt")])
            #expect(await ConditionWait.until { uploads.waiting == 1 })
            draft.suspend()
            #expect(await ConditionWait.until { draft.items.first?.state == .staged && draft.activeItemId == nil })
            #expect(uploads.cancelled == 1)
            await draft.select([text("b.txt")])
            #expect(await ConditionWait.until { draft.items.last?.state == .staged && draft.activeItemId == nil })
            #expect(api.uploadedIds == ["up-2"], "while stopped, items are prepared but none uploads")

            uploads.release(2)
            draft.resume()
            #expect(await allReady(draft))
            #expect(api.uploadedIds == ["up-2", "up-2", "up-3"])
        }
    }

    @Test func sendingWaitsForItemsUnderWayAndNeedsSomethingToSend() async throws {
        try await AttachmentFixtures.withDirectory { directory in
            let uploads = TestGate()
            let draft = await makeDraft(
                directory, api: FakeAgentRoomAPI(uploadGate: uploads), capability: AttachmentFixtures.capability())
            #expect(!draft.canSend(caption: ""))
            #expect(!draft.canSend(caption: " \n\t"))
            #expect(draft.canSend(caption: "hi"))
            await draft.select([text("a.txt")])
            #expect(!draft.canSend(caption: "hi"), "an item still uploading")
            uploads.release()
            #expect(await allReady(draft))
            #expect(draft.canSend(caption: ""), "an empty caption can send ready attachments")
            #expect(draft.canSend(caption: "look"))
        }
    }
}
