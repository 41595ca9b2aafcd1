import Foundation
import SybilClient
import SybilCore
import SybilHTTP
import SybilNet
import SybilStore
import SybilWire

/// The server the driver and the checker talk to: its base URL and bearer token, and the
/// clients every surface builds on (the same ones the apps wire).
public struct ChaosConnection: Sendable {
    /// The server's base URL, e.g. `http://127.0.0.1:8799`.
    public let baseURL: URL
    /// The bearer token.
    public let token: String

    /// A connection to `baseURL` with `token`.
    public init(baseURL: URL, token: String) {
        self.baseURL = baseURL
        self.token = token
    }

    /// The token chain holding ``token``.
    public var tokens: TokenProvider {
        let account = "sybil-chaos"
        return TokenProvider(current: TokenLocation(store: InMemorySecretStore([account: token]), account: account))
    }

    /// The desktop client (workspaces).
    public func desktop() -> WorkspaceDesktopClient {
        WorkspaceDesktopClient(
            baseURL: baseURL, http: DefaultHTTPClient.make(), tokens: tokens, timeout: .seconds(10))
    }

    /// The Agent room's REST client.
    public func agentAPI() throws -> AgentRoomHTTPClient {
        AgentRoomHTTPClient(
            base: try AgentAPIBase(baseURL), http: DefaultHTTPClient.make(redirects: .deliver), tokens: tokens,
            random: SystemRandomSource())
    }

    /// The first session of the first online desktop's first project: the chat the workspace
    /// messages go to (the reference server's seeded data has one).
    public func workspaceChat() async throws -> WorkspaceChatKey {
        let desktop = desktop()
        for listed in try await desktop.desktops() where listed.online {
            for project in try await desktop.projects(desktopId: listed.desktopId) {
                let sessions = try await desktop.sessions(desktopId: listed.desktopId, projectId: project.projectId)
                if let session = sessions.first {
                    return WorkspaceChatKey(
                        desktopId: listed.desktopId, projectId: project.projectId, sessionId: session.sessionId)
                }
            }
        }
        throw ChaosError("the server lists no workspace session on an online desktop")
    }
}
