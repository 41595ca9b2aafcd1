import SybilClient
import SybilCore
import SybilStore
import SybilTesting
import SybilTimeline
import SybilWire
import Testing

/// What a relaunch shows when the resend stops early (found by the workspace simulation,
/// seeds 58 and 100): the messages waiting behind a failed one must not keep saying "sending".
@MainActor
@Suite("Workspace composer restore", .timeLimit(.minutes(2)))
struct WorkspaceComposerRestoreTests {
    @Test func messagesWaitingBehindAFailedResendShowAsFailedNotSending() async throws {
        let store = InMemoryKeyValueStore()
        let desktop = FakeDesktop()
        desktop.behaviour = .fail("The network is down.")
        let first = try WorkspaceChatComposerTests.launch(store: store, desktop: desktop, seed: 21)
        for text in ["eins", "zwei", "drei"] {
            first.composer.draft = text
            _ = await first.composer.send()
        }

        let relaunched = try WorkspaceChatComposerTests.launch(store: store, desktop: desktop, seed: 22)
        await relaunched.composer.restore()
        #expect(relaunched.composer.deliveries.map(\.text) == ["eins", "zwei", "drei"])
        #expect(
            relaunched.composer.deliveries.allSatisfy { $0.state != .pending },
            "nothing is being sent any more: \(relaunched.composer.deliveries.map(\.state))")
        guard case .failed(let reason)? = relaunched.composer.deliveries.last?.state else {
            Issue.record("a message behind a failed one is failed, with Retry")
            return
        }
        #expect(reason.contains("earlier message"))

        desktop.behaviour = .accept
        await relaunched.composer.retryUnaccepted()
        #expect(relaunched.composer.deliveries.allSatisfy { $0.state == .accepted })
        #expect(desktop.delivered.map(\.text) == ["eins", "zwei", "drei"], "each once, in order")
    }
}
