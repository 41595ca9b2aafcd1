#if canImport(CSecret)
    import CSecret
    import SybilCore

    /// Keys in the Secret Service (GNOME Keyring, KWallet) over libsecret, as items of the schema
    /// `dev.sybil.Key` with one attribute, `name`, in the default collection. This final class
    /// owns the service handle and releases it in `deinit`; every call's `GError` is checked and
    /// thrown as a ``SecretServiceError`` with libsecret's message (never the secret).
    ///
    /// `@unchecked Sendable`: the only state is the immutable handle, and every call on it runs
    /// under `lock`, so no two threads use it at once.
    public final class SecretServiceKeyStore: KeyStore, @unchecked Sendable {
        private let service: UnsafeMutablePointer<SecretService>
        private let lock = Locked(())

        /// Connects to the Secret Service on the process's session bus and opens a session;
        /// throws when no service answers.
        public init() throws(SecretServiceError) {
            var error: UnsafeMutablePointer<GError>?
            let service = sybil_secret_service_open(&error)
            try Self.check(error, "connect to the Secret Service")
            guard let service else {
                throw SecretServiceError(operation: "connect to the Secret Service", message: "no service")
            }
            self.service = service
        }

        deinit {
            g_object_unref(service)
        }

        public var location: String { "the Secret Service" }

        public func key(named name: String) throws -> String? {
            try KeyStores.validate(name: name)
            return try lock.withLock { _ throws(SecretServiceError) -> String? in
                var error: UnsafeMutablePointer<GError>?
                var length: gsize = 0
                let copy = sybil_secret_lookup(service, name, &length, &error)
                defer { sybil_secret_free(copy, length) }
                try Self.check(error, "read the key '\(name)'")
                guard let copy else { return nil }
                return copy.withMemoryRebound(to: UInt8.self, capacity: Int(length)) { bytes in
                    String(decoding: UnsafeBufferPointer(start: bytes, count: Int(length)), as: UTF8.self)
                }
            }
        }

        public func setKey(_ secret: String, named name: String) throws {
            try KeyStores.validate(name: name)
            try lock.withLock { _ throws(SecretServiceError) in
                var error: UnsafeMutablePointer<GError>?
                let bytes = Array(secret.utf8)
                _ = bytes.withUnsafeBufferPointer { buffer in
                    buffer.withMemoryRebound(to: CChar.self) { text in
                        sybil_secret_store(
                            service, name, "Sybil key \(name)", text.baseAddress, gssize(text.count), &error)
                    }
                }
                try Self.check(error, "store the key '\(name)'")
            }
        }

        public func removeKey(named name: String) throws -> Bool {
            try KeyStores.validate(name: name)
            return try lock.withLock { _ throws(SecretServiceError) -> Bool in
                var error: UnsafeMutablePointer<GError>?
                let removed = sybil_secret_clear(service, name, &error)
                try Self.check(error, "remove the key '\(name)'")
                return removed != 0
            }
        }

        public func keyNames() throws -> [String] {
            try lock.withLock { _ throws(SecretServiceError) -> [String] in
                var error: UnsafeMutablePointer<GError>?
                let names = sybil_secret_names(service, &error)
                defer { g_strfreev(names) }
                try Self.check(error, "list the keys")
                var result: [String] = []
                var index = 0
                while let names, let name = names[index] {
                    result.append(String(cString: name))
                    index += 1
                }
                return Set(result).sorted()
            }
        }

        /// Throws (and frees) `error` when a call set it.
        private static func check(_ error: UnsafeMutablePointer<GError>?, _ operation: String)
            throws(SecretServiceError)
        {
            guard let error else { return }
            let message = error.pointee.message.map { String(cString: $0) } ?? "unknown error"
            g_error_free(error)
            throw SecretServiceError(operation: operation, message: message)
        }
    }
#endif
