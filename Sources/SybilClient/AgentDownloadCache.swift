/// The downloads' in-memory cache (SPEC §6.1): originals by key, at most ``limit`` bytes in
/// all, the least recently used dropped first. A file larger than the whole cache is not kept.
public struct AgentDownloadCache: Sendable {
    /// The most bytes held.
    public let limit: Int
    /// Bytes held now.
    public private(set) var totalBytes = 0
    private var entries: [String: [UInt8]] = [:]
    /// Keys, least recently used first.
    public private(set) var keys: [String] = []

    /// An empty cache of at most `limit` bytes.
    public init(limit: Int) {
        precondition(limit >= 0, "a cache limit is not negative")
        self.limit = limit
    }

    /// The bytes for `key` (now the most recently used), or `nil`.
    public mutating func value(for key: String) -> [UInt8]? {
        guard let bytes = entries[key] else { return nil }
        touch(key)
        return bytes
    }

    /// Keeps `bytes` for `key` as the most recently used, dropping the least recently used until
    /// they fit. Bytes larger than ``limit`` are not kept (and replace nothing).
    public mutating func insert(_ bytes: [UInt8], for key: String) {
        guard bytes.count <= limit else { return }
        remove(key)
        while totalBytes + bytes.count > limit, let oldest = keys.first {
            remove(oldest)
        }
        entries[key] = bytes
        keys.append(key)
        totalBytes += bytes.count
    }

    /// Drops everything (a configuration change).
    public mutating func removeAll() {
        entries = [:]
        keys = []
        totalBytes = 0
    }

    private mutating func remove(_ key: String) {
        guard let bytes = entries.removeValue(forKey: key) else { return }
        keys.removeAll { $0 == key }
        totalBytes -= bytes.count
    }

    private mutating func touch(_ key: String) {
        keys.removeAll { $0 == key }
        keys.append(key)
    }
}
