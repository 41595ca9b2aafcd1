import SybilCore

/// Small values by key (preferences, the outbox copy). UserDefaults on Apple; on Linux
/// ``FileKeyValueStore``. Not for secrets: tokens go to the secret store.
public protocol KeyValueStore: Sendable {
    /// The value for `key`, or `nil` when none is stored.
    func data(forKey key: String) throws -> [UInt8]?
    /// Stores `data` for `key`; when this returns, a crash keeps either the old or the new
    /// value.
    func set(_ data: [UInt8], forKey key: String) throws
    /// Removes the value for `key`.
    func removeValue(forKey key: String) throws
}

/// Keys are code constants; this checks their form (letters, digits, `.`, `_`, `-`; 1…200
/// characters), so that each maps to one plain file name.
public enum KeyValueStoreKey {
    /// Whether `key` is a valid key.
    public static func isValid(_ key: String) -> Bool {
        !key.isEmpty && key.utf8.count <= 200 && !key.hasPrefix(".")
            && key.utf8.allSatisfy { byte in
                (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                    || byte == 0x2E || byte == 0x5F || byte == 0x2D
            }
    }
}

/// One file per key in a directory (mode 0700), each replaced atomically (``AtomicFile``).
/// A value holds at most ``maximumValueBytes``: a file larger than that (a corrupt or sparse
/// one in the data folder) is not read, its size asked first, so it cannot exhaust memory;
/// reading it throws, naming its size and the limit, and the file is left where it is. A
/// larger value is not written, so a value stored is one that can be read back.
public struct FileKeyValueStore: KeyValueStore {
    /// The largest value read or written, in bytes: the JSON reader's limit
    /// (``JSONReader/Limits/standard``), since the values kept here are JSON documents.
    public static var maximumValueBytes: Int { JSONReader.Limits.standard.maxBytes }

    /// Where the files live.
    public let directory: String

    /// A store in `directory`, created when missing.
    public init(directory: String) throws {
        try AtomicFile.createDirectory(directory)
        self.directory = directory
    }

    /// The store in Sybil's XDG data directory (`$XDG_DATA_HOME/sybil/preferences`).
    public static func standard(environment: [String: String]) throws -> FileKeyValueStore {
        try FileKeyValueStore(directory: XDGDirectories(environment: environment).sybilData + "/preferences")
    }

    /// The file that holds `key`.
    public func path(forKey key: String) -> String {
        precondition(KeyValueStoreKey.isValid(key), "invalid key-value store key \(key.debugDescription)")
        return directory + "/" + key
    }

    /// The value for `key`, or `nil` when none is stored; a file over ``maximumValueBytes``
    /// is not read (its size is asked first, and at most one byte past the limit is read
    /// should it grow meanwhile): this throws a ``StorageError`` naming its size and the
    /// limit, and leaves the file in place.
    public func data(forKey key: String) throws -> [UInt8]? {
        let path = path(forKey: key)
        switch try BoundedFile.read(path, maxBytes: Self.maximumValueBytes) {
        case .missing: return nil
        case .bytes(let bytes): return bytes
        case .tooLarge(let bytes):
            throw StorageError(
                operation: "read", path: path,
                reason:
                    "it holds \(bytes) bytes, over the limit of \(Self.maximumValueBytes) bytes a stored value may hold; it was not read and is left in place"
            )
        }
    }

    /// Stores `data` for `key`; a value over ``maximumValueBytes`` (which could not be read
    /// back) is not written: this throws a ``StorageError`` and the value stored before stays.
    public func set(_ data: [UInt8], forKey key: String) throws {
        let path = path(forKey: key)
        guard data.count <= Self.maximumValueBytes else {
            throw StorageError(
                operation: "write", path: path,
                reason:
                    "the value holds \(data.count) bytes, over the limit of \(Self.maximumValueBytes) bytes a stored value may hold (it could not be read back); the value stored before stays"
            )
        }
        try AtomicFile.write(data, to: path)
    }

    public func removeValue(forKey key: String) throws {
        try AtomicFile.remove(path(forKey: key))
    }
}

/// A store in memory, for tests and previews. It outlives the objects that use it, so a test
/// can drop those objects (a simulated crash) and start new ones on the same data.
public final class InMemoryKeyValueStore: KeyValueStore {
    private let values = Locked<[String: [UInt8]]>([:])

    /// An empty store.
    public init() {}

    public func data(forKey key: String) throws -> [UInt8]? {
        values.withLock { $0[key] }
    }

    public func set(_ data: [UInt8], forKey key: String) throws {
        values.withLock { $0[key] = data }
    }

    public func removeValue(forKey key: String) throws {
        _ = values.withLock { $0.removeValue(forKey: key) }
    }
}
