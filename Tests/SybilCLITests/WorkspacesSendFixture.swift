import Foundation
import SybilServer

/// What the `sybil workspaces send` end-to-end suites share: a reference server answering at
/// once, and the command's environment pointed at it with its data under a test's folder.
enum WorkspacesSendFixture {
    /// The token the server takes and the command sends.
    static let token = "cli-token"

    /// A reference server in this process, with no pacing of its scripted agent.
    static func server() throws -> ReferenceServer {
        var options = SybilServerOptions(token: token)
        options.pace = .zero
        return try ReferenceServer(options: options)
    }

    /// The command's I/O against `server`, its data (outbox, kept texts) under `data`.
    static func io(_ server: ReferenceServer, data: URL) -> TestIO {
        TestIO(environment: [
            "SYBIL_API_URL": server.baseURL.absoluteString, "SYBIL_TOKEN": token, "XDG_DATA_HOME": data.path,
        ])
    }
}
