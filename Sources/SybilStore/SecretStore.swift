import SybilCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Why a secret could not be used.
public enum SecretStoreError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The file or directory can be read by group or others; it is not used.
    case insecurePermissions(path: String, mode: UInt32)

    /// One sentence saying what to do.
    public var description: String {
        switch self {
        case .insecurePermissions(let path, let mode):
            "\(path) is readable by other users (mode \(String(mode, radix: 8))); "
                + "it was not used. To fix, run: chmod go-rwx '\(path)'"
        }
    }
}

/// Secrets as files of mode 0600 in a directory of mode 0700 (Linux). A file or directory that
/// group or others can access is refused with ``SecretStoreError/insecurePermissions(path:mode:)``.
public struct FileSecretStore: SecretStore {
    /// The directory, e.g. `$XDG_CONFIG_HOME/sybil/secrets`.
    public let directory: String

    /// A store in `directory` (created 0700 when missing).
    public init(directory: String) throws {
        try AtomicFile.createDirectory(directory)
        self.directory = directory
    }

    /// The store under the XDG config home.
    public static func standard(environment: [String: String]) throws -> FileSecretStore {
        try FileSecretStore(directory: XDGDirectories(environment: environment).configHome + "/sybil/secrets")
    }

    public func secret(for account: String) throws -> String? {
        let path = try self.path(for: account)
        try Self.requireOwnerOnly(directory)
        guard try Self.requireOwnerOnly(path, missingIsFine: true) else { return nil }
        return try AtomicFile.read(path).map { String(decoding: $0, as: UTF8.self) }
    }

    public func setSecret(_ value: String, for account: String) throws {
        try Self.requireOwnerOnly(directory)
        try AtomicFile.write(Array(value.utf8), to: try path(for: account))
    }

    public func removeSecret(for account: String) throws {
        try AtomicFile.remove(try path(for: account))
    }

    private func path(for account: String) throws -> String {
        precondition(KeyValueStoreKey.isValid(account), "invalid secret account name \(account.debugDescription)")
        return directory + "/" + account
    }

    /// Checks that group and others have no access to `path`; returns whether it exists (a
    /// missing path throws unless `missingIsFine`).
    @discardableResult
    private static func requireOwnerOnly(_ path: String, missingIsFine: Bool = false) throws -> Bool {
        var info = stat()
        guard stat(path, &info) == 0 else {
            if missingIsFine && errno == ENOENT { return false }
            throw AtomicFile.systemError("stat", path)
        }
        let mode = UInt32(info.st_mode) & 0o777
        guard mode & 0o077 == 0 else { throw SecretStoreError.insecurePermissions(path: path, mode: mode) }
        return true
    }
}

/// Secrets in memory, for tests.
public final class InMemorySecretStore: SecretStore {
    private let secrets = Locked<[String: String]>([:])

    /// A store holding `initial`.
    public init(_ initial: [String: String] = [:]) {
        secrets.withLock { $0 = initial }
    }

    /// Everything stored (tests check what went where).
    public var all: [String: String] { secrets.withLock { $0 } }

    public func secret(for account: String) throws -> String? { secrets.withLock { $0[account] } }
    public func setSecret(_ value: String, for account: String) throws { secrets.withLock { $0[account] = value } }
    public func removeSecret(for account: String) throws { _ = secrets.withLock { $0.removeValue(forKey: account) } }
}
