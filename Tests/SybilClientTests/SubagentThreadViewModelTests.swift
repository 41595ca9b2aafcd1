import SybilClient
import SybilTimeline
import Testing

@MainActor
@Suite("Subagent thread viewer", .timeLimit(.minutes(2)))
struct SubagentThreadViewModelTests {
    @Test func loadsThroughTheThreadCallsOnItsOwnViewport() async {
        let rpc = ScriptedWorkspaceChatRPC()
        let viewer = SubagentThreadViewModel(chat: chatA, threadId: "thr-7", rpc: rpc)
        #expect(viewer.timeline.viewport.description == "subagent-thr-7")
        rpc.expect(.thread(chatA, threadId: "thr-7"))
        async let loaded: Void = viewer.load()
        await rpc.waitForCall(.thread(chatA, threadId: "thr-7"))
        #expect(viewer.isLoading)
        rpc.answer(
            .thread(chatA, threadId: "thr-7"),
            with: .page(Envelopes.page(["t2", "t3"], thread: "thr-7", hasOlder: true, cursor: "thr-7:c2")))
        await loaded
        #expect(!viewer.isLoading)
        #expect(viewer.timeline.rows.map(\.id) == ["row:t2", "row:t3"])
        rpc.expect(.threadPageBefore(chatA, threadId: "thr-7", cursor: "thr-7:c2"))
        async let older = viewer.loadOlderPage()
        await rpc.waitForCall(.threadPageBefore(chatA, threadId: "thr-7", cursor: "thr-7:c2"))
        rpc.answer(
            .threadPageBefore(chatA, threadId: "thr-7", cursor: "thr-7:c2"),
            with: .page(Envelopes.page(["t1"], thread: "thr-7")))
        #expect(await older)
        #expect(viewer.timeline.rows.map(\.id) == ["row:t1", "row:t2", "row:t3"])
        rpc.verifyDone()
    }

    @Test func aThreadChangeAdvancesTheEpochAndDropsTheOldThreadsPage() async {
        let rpc = ScriptedWorkspaceChatRPC()
        let viewer = SubagentThreadViewModel(chat: chatA, threadId: "thr-1", rpc: rpc)
        rpc.expect(.thread(chatA, threadId: "thr-1"))
        async let loaded: Void = viewer.load()
        await rpc.waitForCall(.thread(chatA, threadId: "thr-1"))
        viewer.show(threadId: "thr-2")
        #expect(viewer.timeline.displayEpoch == 1)
        rpc.answer(.thread(chatA, threadId: "thr-1"), with: .page(Envelopes.page(["old"], thread: "thr-1")))
        await loaded
        #expect(viewer.timeline.rows.isEmpty, "a page for the previous thread is dropped")
        #expect(viewer.threadId == "thr-2")
        rpc.verifyDone()
    }

    @Test func aPageForAnotherThreadIsAnError() async {
        let rpc = ScriptedWorkspaceChatRPC()
        let viewer = SubagentThreadViewModel(chat: chatA, threadId: "thr-1", rpc: rpc)
        rpc.expect(.thread(chatA, threadId: "thr-1"))
        async let loaded: Void = viewer.load()
        await rpc.waitForCall(.thread(chatA, threadId: "thr-1"))
        rpc.answer(.thread(chatA, threadId: "thr-1"), with: .page(Envelopes.page(["x"], thread: "thr-9")))
        await loaded
        #expect(viewer.timeline.rows.isEmpty)
        #expect(viewer.lastLoadError == "The desktop answered with thread thr-9 for thread thr-1.")
        rpc.verifyDone()
    }
}
