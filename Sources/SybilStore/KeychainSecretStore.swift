#if canImport(Security)
    import Foundation
    import Security

    /// Secrets as generic-password Keychain items of one service (Apple platforms), kept thin:
    /// the same protocol as ``FileSecretStore``.
    public struct KeychainSecretStore: SecretStore {
        /// The Keychain service name.
        public let service: String

        /// A store for `service`.
        public init(service: String) {
            self.service = service
        }

        private func query(_ account: String) -> [CFString: Any] {
            [kSecClass: kSecClassGenericPassword, kSecAttrService: service, kSecAttrAccount: account]
        }

        public func secret(for account: String) throws -> String? {
            var query = query(account)
            query[kSecReturnData] = true
            query[kSecMatchLimit] = kSecMatchLimitOne
            var result: CFTypeRef?
            let status = SecItemCopyMatching(query as CFDictionary, &result)
            if status == errSecItemNotFound { return nil }
            guard status == errSecSuccess, let data = result as? Data else { throw KeychainError(status: status) }
            return String(decoding: data, as: UTF8.self)
        }

        public func setSecret(_ value: String, for account: String) throws {
            let data = Data(value.utf8)
            let updated = SecItemUpdate(query(account) as CFDictionary, [kSecValueData: data] as CFDictionary)
            if updated == errSecSuccess { return }
            guard updated == errSecItemNotFound else { throw KeychainError(status: updated) }
            var item = query(account)
            item[kSecValueData] = data
            item[kSecAttrAccessible] = kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly
            let added = SecItemAdd(item as CFDictionary, nil)
            guard added == errSecSuccess else { throw KeychainError(status: added) }
        }

        public func removeSecret(for account: String) throws {
            let status = SecItemDelete(query(account) as CFDictionary)
            guard status == errSecSuccess || status == errSecItemNotFound else { throw KeychainError(status: status) }
        }
    }

    /// A Keychain call failed with this `OSStatus`.
    public struct KeychainError: Error, Sendable, Hashable {
        /// The status code.
        public var status: Int32
    }
#endif
