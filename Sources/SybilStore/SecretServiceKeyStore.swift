#if canImport(CSecret)
    import CSecret
    import SybilCore

    /// Keys in the Secret Service (GNOME Keyring, KWallet) over libsecret, as items of the schema
    /// `dev.sybil.Key` with one attribute, `name`, in the default collection. libsecret is loaded
    /// the first time a store is made (``SecretServiceLibrary``); when it cannot be, `init` throws
    /// like a service that does not answer. This final class owns the service handle and releases
    /// it in `deinit`; every call's `GError` is checked and thrown as a ``SecretServiceError`` with
    /// libsecret's message (never the secret).
    ///
    /// `@unchecked Sendable`: the only state is the immutable handle and library, and every call on
    /// them runs under `lock`, so no two threads use the handle at once.
    public final class SecretServiceKeyStore: KeyStore, @unchecked Sendable {
        private let service: UnsafeMutableRawPointer
        private let library: SecretServiceLibrary
        private var api: UnsafePointer<sybil_secret_api> { library.api }
        private let lock = Locked(())

        /// Connects to the Secret Service on the process's session bus and opens a session;
        /// throws when libsecret cannot be loaded or no service answers.
        public convenience init() throws(SecretServiceError) {
            try self.init(library: SecretServiceLibrary.shared)
        }

        /// ``init()`` with `library` instead of the process's libsecret.
        init(library: Result<SecretServiceLibrary, SecretServiceError>) throws(SecretServiceError) {
            let library = try library.get()
            var error: UnsafeMutablePointer<sybil_gerror>?
            let service = sybil_secret_service_open(library.api, &error)
            try Self.check(error, "connect to the Secret Service", library.api)
            guard let service else {
                throw SecretServiceError(operation: "connect to the Secret Service", message: "no service")
            }
            self.service = service
            self.library = library
        }

        deinit {
            sybil_secret_release(api, service)
        }

        public var location: String { "the Secret Service" }

        public func key(named name: String) throws -> String? {
            try KeyStores.validate(name: name)
            return try lock.withLock { _ throws(SecretServiceError) -> String? in
                var error: UnsafeMutablePointer<sybil_gerror>?
                var length = 0
                let copy = sybil_secret_lookup(api, service, name, &length, &error)
                defer { sybil_secret_free(copy, length) }
                try Self.check(error, "read the key '\(name)'", api)
                guard let copy else { return nil }
                return copy.withMemoryRebound(to: UInt8.self, capacity: Int(length)) { bytes in
                    String(decoding: UnsafeBufferPointer(start: bytes, count: Int(length)), as: UTF8.self)
                }
            }
        }

        public func setKey(_ secret: String, named name: String) throws {
            try KeyStores.validate(name: name)
            try lock.withLock { _ throws(SecretServiceError) in
                var error: UnsafeMutablePointer<sybil_gerror>?
                let bytes = Array(secret.utf8) + [0]
                _ = bytes.withUnsafeBufferPointer { buffer in
                    buffer.withMemoryRebound(to: CChar.self) { text in
                        sybil_secret_store(
                            api, service, name, "Sybil key \(name)", text.baseAddress!, text.count - 1, &error)
                    }
                }
                try Self.check(error, "store the key '\(name)'", api)
            }
        }

        public func removeKey(named name: String) throws -> Bool {
            try KeyStores.validate(name: name)
            return try lock.withLock { _ throws(SecretServiceError) -> Bool in
                var error: UnsafeMutablePointer<sybil_gerror>?
                let removed = sybil_secret_clear(api, service, name, &error)
                try Self.check(error, "remove the key '\(name)'", api)
                return removed != 0
            }
        }

        public func keyNames() throws -> [String] {
            try lock.withLock { _ throws(SecretServiceError) -> [String] in
                var error: UnsafeMutablePointer<sybil_gerror>?
                let names = sybil_secret_names(api, service, &error)
                defer { sybil_secret_names_free(names) }
                try Self.check(error, "list the keys", api)
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
        private static func check(
            _ error: UnsafeMutablePointer<sybil_gerror>?, _ operation: String, _ api: UnsafePointer<sybil_secret_api>
        ) throws(SecretServiceError) {
            guard let error else { return }
            let message = error.pointee.message.map { String(cString: $0) } ?? "unknown error"
            sybil_secret_error_free(api, error)
            throw SecretServiceError(operation: operation, message: message)
        }
    }
#endif
