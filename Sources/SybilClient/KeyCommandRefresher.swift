import SybilNet

/// Renews a refused key by running the profile's `key_command` (``KeyCommand``): the
/// ``TokenRefresher`` of a profile that can renew. ``TokenProvider`` calls it once per 401,
/// single-flight, and keeps the fresh key in memory only.
public struct KeyCommandRefresher: TokenRefresher {
    /// The command.
    public var command: KeyCommand

    /// A refresher running `command`.
    public init(command: KeyCommand) {
        self.command = command
    }

    public func refreshToken(expired: String?) async throws -> String {
        try await command.run()
    }
}
