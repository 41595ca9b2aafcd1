import SybilClient
import SybilCore
import SybilStore
import SybilTesting
import SybilWire
import Testing

@testable import SybilTUI

/// SPEC §2 "nothing lost": a list of texts kept undelivered that cannot be saved, or a
/// sessions' list that cannot be read back at launch, is named on the status line, not left
/// unsaid.
@MainActor
@Suite("Terminal app: kept texts that cannot be saved or read", .timeLimit(.minutes(1)))
struct KeptTextProblemNoticeTests {
    static let session = WorkspaceChatKey(desktopId: "desk-1", projectId: "app", sessionId: "s1")

    /// The workspace seam with `undelivered` and no desktop; no session is opened here.
    private func workspaces(undelivered: WorkspaceUndeliveredMessages) -> TerminalAppServices.Workspaces {
        TerminalAppServices.Workspaces(
            list: { .success([]) }, open: { _, _ in fatalError("no session is opened in these tests") },
            undelivered: undelivered)
    }

    @Test func aSessionsListThatCannotBeReadIsNamedAtLaunch() async throws {
        let kept = InMemoryKeyValueStore()
        try kept.set(Array("{not json".utf8), forKey: "workspace-undelivered")
        let controller = await TerminalAppController.startedForTest(
            workspaces: workspaces(undelivered: WorkspaceUndeliveredMessages(persistence: .workspaces(in: kept))))
        #expect(controller.app.notice?.contains("kept aside") == true, "\(controller.app.notice ?? "no notice")")
        await controller.close()
    }

    @Test func listsWhoseStoreCouldNotBeOpenedAreNamedAtLaunch() async throws {
        struct Unwritable: Error, CustomStringConvertible {
            var description: String { "create directory '/data/sybil/client': Permission denied" }
        }
        let chats = ChatUndeliveredMessages.opening(store: { throw Unwritable() }, persistence: { .chats(in: $0) })
        let sessions = WorkspaceUndeliveredMessages.opening(
            store: { throw Unwritable() }, persistence: { .workspaces(in: $0) })
        let controller = await TerminalAppController.startedForTest(
            workspaces: workspaces(undelivered: sessions), undelivered: chats)
        let notice = try #require(controller.app.notice, "a list that does not outlast the app is not left unsaid")
        #expect(notice.contains("Permission denied"), "\(notice)")
        #expect(notice.contains("chats' messages not delivered are kept only until the app quits"), "\(notice)")
        #expect(notice.contains("sessions' messages not delivered are kept only until the app quits"), "\(notice)")
        #expect(notice.contains("make the data folder writable"), "\(notice)")
        await controller.close()
    }

    @Test func aSessionTextTheListCannotSaveIsNamedOnce() async throws {
        let crash = KeptTextCrashSwitch()
        let list = WorkspaceUndeliveredMessages(
            persistence: .workspaces(in: crash.store(over: InMemoryKeyValueStore())))
        let controller = await TerminalAppController.startedForTest(workspaces: workspaces(undelivered: list))
        #expect(controller.app.notice == nil)
        crash.die()
        // As the sender keeps a refused text in the background; the runner syncs on the change.
        list.keep(
            WorkspaceUndeliveredMessages.Message(
                id: "op-1", chat: Self.session, text: "Erst die Tests.", cause: .rejected, reason: "finished"))
        controller.sync()
        let notice = try #require(controller.app.notice)
        #expect(notice.contains("could not be saved") && notice.contains("the process died"), "\(notice)")
        #expect(notice.contains("sessions' messages not delivered stay kept until the app quits"))
        controller.deliver(.noticed("Something else."))
        controller.sync()
        #expect(controller.app.notice == "Something else.", "named once, not on every redraw")
        await controller.close()
    }

    @Test func aChatTextTheListCannotSaveIsNamed() async throws {
        let crash = KeptTextCrashSwitch()
        let list = ChatUndeliveredMessages(persistence: .chats(in: crash.store(over: InMemoryKeyValueStore())))
        let controller = await TerminalAppController.startedForTest(undelivered: list)
        crash.die()
        list.keep(
            ChatUndeliveredMessages.Message(
                id: "unsent-1", chat: .newChat, text: "Nicht verloren.", cause: .notSent, reason: "Not attached."))
        controller.sync()
        let notice = try #require(controller.app.notice)
        #expect(notice.contains("could not be saved") && notice.contains("chats' messages not delivered"), "\(notice)")
        await controller.close()
    }
}
