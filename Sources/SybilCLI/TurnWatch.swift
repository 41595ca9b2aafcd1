import SybilClient
import SybilCore
import SybilHTTP
import SybilWire
import Synchronization

/// Follows a chat's events from its creation, so that `sybil workspaces send` with the
/// embedded desktop can wait until the turn its message went to has ended.
final class TurnWatch: Sendable {
    private let updates: AsyncStream<WorkspaceEventsClient<ContinuousClock>.Update>

    init(chat: WorkspaceChatKey, connection: ServerTarget.Connection) {
        let events = WorkspaceEventsClient(
            chat: chat, baseURL: connection.baseURL, http: connection.http(), tokens: connection.tokens,
            clock: ContinuousClock(), random: SystemRandomSource())
        updates = events.updates()
    }

    /// How the run that took `operationId` ended (its live user row names the run), or `nil`
    /// after `limit`.
    func ending(of operationId: String, limit: Duration) async -> WorkspaceRunState? {
        let updates = updates
        return await withTaskGroup(of: WorkspaceRunState?.self) { group in
            group.addTask {
                var runId: String?
                var endings: [String: WorkspaceRunState] = [:]
                for await update in updates {
                    guard case .event(let event, _) = update else { continue }
                    switch event {
                    case .overlay(let overlay):
                        if runId == nil {
                            runId = overlay.blocks.first { $0.type == .user && $0.operationId == operationId }?.runId
                        }
                    case .run(let id, let state) where state.isEnding:
                        endings[id] = state
                    default:
                        break
                    }
                    if let runId, let ending = endings[runId] { return ending }
                }
                return nil
            }
            group.addTask {
                try? await ContinuousClock().sleep(for: limit)
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
    }
}
