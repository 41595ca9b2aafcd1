import Foundation
import SybilClient
import SybilCore
import SybilTesting
import SybilWire
import Testing

@testable import SybilTUI

/// `/attach` in the Agent room when the draft takes no file: each reason has its own true
/// sentence. A room whose descriptor is still loading says so and that it can be tried again
/// in a moment (never that it takes no files); a full draft names the limit and how to remove
/// one with `/detach N`.
@Suite("Agent room: why /attach attached nothing")
struct AgentDraftAvailabilityTests {
    private let limits = AgentAttachmentLimits.v1

    private func availability(
        isLoaded: Bool = true, limits: AgentAttachmentLimits? = .v1, isAvailable: Bool = true,
        isHandingOff: Bool = false, count: Int = 0
    ) -> AgentDraftAvailability {
        AgentDraftAvailability(
            isLoaded: isLoaded, limits: limits, isAvailable: isAvailable, isHandingOff: isHandingOff, count: count)
    }

    @Test func aRoomStillLoadingSaysSoAndThatItCanBeTriedAgain() throws {
        let loading = availability(isLoaded: false, limits: nil)
        #expect(loading == .loading)
        let sentence = try #require(loading.refusal)
        #expect(sentence.contains("still loading"))
        #expect(sentence.contains("Try /attach again in a moment"))
        #expect(sentence.contains("nothing was sent"))
        #expect(!sentence.contains("takes no attachments"), "a loading room is not a room without attachments")
        #expect(availability(isLoaded: false, limits: limits) == .loading, "the draft has not taken it in yet")
    }

    @Test func aFullDraftNamesTheLimitAndHowToRemoveOne() throws {
        let full = availability(count: limits.maxFiles)
        #expect(full == .full(limit: limits.maxFiles))
        let sentence = try #require(full.refusal)
        #expect(sentence.contains("already holds \(limits.maxFiles) attachments, the most a message takes"))
        #expect(sentence.contains("/detach N removes one"))
        #expect(!sentence.contains("takes no attachments"), "a full draft is not a closed room")
        #expect(availability(count: limits.maxFiles - 1) == .open)
        #expect(availability(count: limits.maxFiles - 1).refusal == nil)
    }

    @Test func theOtherReasonsHaveTheirOwnSentences() {
        #expect(availability(limits: nil) == .textOnly)
        #expect(availability(limits: nil).refusal == "This room takes no attachments; nothing was sent.")
        #expect(availability(isAvailable: false) == .unavailable)
        #expect(availability(isAvailable: false).refusal?.hasPrefix("The server cannot take files right now") == true)
        #expect(availability(isHandingOff: true) == .handingOff)
        #expect(availability(isHandingOff: true).refusal?.contains("Try /attach again in a moment") == true)
        let sentences = [
            AgentDraftAvailability.loading, .textOnly, .unavailable, .handingOff, .full(limit: 8),
        ].compactMap(\.refusal)
        #expect(Set(sentences).count == 5, "no two reasons read the same")
    }

    @Test @MainActor func aRoomWhoseDescriptorHasNotArrivedIsStillLoading() {
        let room = AgentRoomModel(api: UnreachableAgentRoom(), stream: UnreachableAgentRoom(), timeZone: .gmt)
        let draft = AgentAttachmentDraft(
            api: UnreachableAgentRoom(),
            storage: AgentAttachmentFileStore(
                directory: FileManager.default.temporaryDirectory.appendingPathComponent("sybil-unused").path,
                baseURL: URL(string: "http://127.0.0.1:9/v1")!),
            ids: SequentialIDGenerator(prefix: "u"))
        #expect(room.descriptor == nil)
        #expect(AgentDraftAvailability(room: room, draft: draft) == .loading)
        draft.setCapability(AgentRoomDescriptor.Attachments(limits: .v1, quota: nil))
        #expect(draft.canSelect, "the draft alone would take files")
        #expect(AgentDraftAvailability(room: room, draft: draft) == .loading, "the room's descriptor is not there")
    }
}
