/// Where tokens live: the Keychain on Apple platforms, owner-only files on Linux. Never plain
/// preferences, never logs. The seam lives here, below both its users: SybilStore implements it
/// (`FileSecretStore`, `KeychainSecretStore`, `InMemorySecretStore`) and SybilNet's token chain
/// reads through it, so the network layer does not depend on storage.
public protocol SecretStore: Sendable {
    /// The secret for `account`, or `nil`.
    func secret(for account: String) throws -> String?
    /// Stores `value` for `account`.
    func setSecret(_ value: String, for account: String) throws
    /// Removes the secret for `account`.
    func removeSecret(for account: String) throws
}
