#if canImport(Darwin)
    import Foundation

    /// The key-value store on Apple platforms: UserDefaults (standard, or a suite shared with an
    /// app group). UserDefaults is thread-safe; the store keeps only the suite name, so it is
    /// a plain `Sendable` value.
    public struct UserDefaultsKeyValueStore: KeyValueStore {
        /// The suite, or `nil` for the standard defaults.
        public let suiteName: String?

        /// A store over `suiteName` (standard defaults when `nil`).
        public init(suiteName: String? = nil) {
            self.suiteName = suiteName
        }

        private var defaults: UserDefaults {
            suiteName.flatMap(UserDefaults.init(suiteName:)) ?? .standard
        }

        public func data(forKey key: String) throws -> [UInt8]? {
            defaults.data(forKey: key).map { [UInt8]($0) }
        }

        public func set(_ data: [UInt8], forKey key: String) throws {
            defaults.set(Data(data), forKey: key)
        }

        public func removeValue(forKey key: String) throws {
            defaults.removeObject(forKey: key)
        }
    }
#endif
