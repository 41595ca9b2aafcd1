import SybilClient
import SybilCore
import SybilNet
import SybilStore
import SybilTesting

@testable import SybilTUI

extension TerminalAppController {
    /// A started controller over an empty chat list (no streaming, no warm-up), with `agent`
    /// and `workspaces` as a test gives them: the set-up the terminal app's Agent room and
    /// workspace tests share; the chats' replies come from `streaming` (by default none), their
    /// texts kept undelivered in `undelivered`.
    static func startedForTest(
        agent: AgentRoomComposer? = nil, workspaces: TerminalAppServices.Workspaces? = nil,
        streaming: any ChatStreaming = TerminalAppForegroundTests.NoStreaming(),
        size: TerminalSize = TerminalSize(columns: 80, rows: 24),
        undelivered: ChatUndeliveredMessages = ChatUndeliveredMessages()
    ) async -> TerminalAppController {
        let store = InMemoryChatHistory()
        let chats = ChatListModel(
            streaming: streaming, store: store, model: "m", now: { 1_000 },
            ids: SequentialIDGenerator(prefix: "id"), warmUp: nil, undelivered: undelivered)
        let services = TerminalAppServices(
            chats: chats, search: ChatSearchModel(store: store, clock: AnyClock(ContinuousClock())), agent: agent,
            workspaces: workspaces)
        let controller = TerminalAppController(services: services, theme: .monochrome, size: size)
        await controller.start()
        return controller
    }
}
