import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Keys as files `NAME.key` of mode 0600 in a directory of mode 0700, with
/// ``FileSecretStore``'s rules: a file or directory that group or others can access is refused
/// with ``SecretStoreError/insecurePermissions(path:mode:)``; every write is atomic
/// (``AtomicFile``). The `.key` suffix keeps every name (even `.` or `..`) a plain file name
/// and tells keys from a write's temporary file.
public struct FileKeyStore: KeyStore {
    /// The directory, e.g. `$XDG_DATA_HOME/sybil/keys`.
    public let directory: String

    /// A store in `directory` (created 0700 at the first write).
    public init(directory: String) {
        self.directory = directory
    }

    /// The store under the XDG data home: `$XDG_DATA_HOME/sybil/keys`.
    public static func standard(environment: [String: String]) -> FileKeyStore {
        FileKeyStore(directory: XDGDirectories(environment: environment).sybilData + "/keys")
    }

    public var location: String { "the files \(directory)/*.key (0600)" }

    public func key(named name: String) throws -> String? {
        let path = try self.path(for: name)
        guard try Self.requireOwnerOnly(directory) else { return nil }
        guard try Self.requireOwnerOnly(path) else { return nil }
        return try AtomicFile.read(path).map { String(decoding: $0, as: UTF8.self) }
    }

    public func setKey(_ secret: String, named name: String) throws {
        let path = try self.path(for: name)
        try AtomicFile.createDirectory(directory)
        try Self.requireOwnerOnly(directory)
        try AtomicFile.write(Array(secret.utf8), to: path)
    }

    public func removeKey(named name: String) throws -> Bool {
        let path = try self.path(for: name)
        guard try Self.requireOwnerOnly(directory, missingIsFine: true) else { return false }
        let existed = access(path, F_OK) == 0
        try AtomicFile.remove(path)
        return existed
    }

    public func keyNames() throws -> [String] {
        guard try Self.requireOwnerOnly(directory, missingIsFine: true) else { return [] }
        let entries: [String]
        do {
            entries = try FileManager.default.contentsOfDirectory(atPath: directory)
        } catch {
            throw StorageError(operation: "list", path: directory, reason: "\(error.localizedDescription)")
        }
        return entries.compactMap { entry -> String? in
            guard entry.hasSuffix(Self.suffix) else { return nil }
            let name = String(entry.dropLast(Self.suffix.count))
            return (try? KeyStores.validate(name: name)) == nil ? nil : name
        }.sorted()
    }

    private static let suffix = ".key"

    private func path(for name: String) throws(KeyNameError) -> String {
        try KeyStores.validate(name: name)
        return directory + "/" + name + Self.suffix
    }

    /// Checks that group and others have no access to `path`; returns whether it exists (a
    /// missing path throws unless `missingIsFine`).
    @discardableResult
    private static func requireOwnerOnly(_ path: String, missingIsFine: Bool = true) throws -> Bool {
        var info = stat()
        guard stat(path, &info) == 0 else {
            if missingIsFine && errno == ENOENT { return false }
            throw StorageError(operation: "stat", path: path, reason: String(cString: strerror(errno)))
        }
        let mode = UInt32(info.st_mode) & 0o777
        guard mode & 0o077 == 0 else { throw SecretStoreError.insecurePermissions(path: path, mode: mode) }
        return true
    }
}
