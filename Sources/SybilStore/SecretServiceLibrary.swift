#if canImport(CSecret)
    import CSecret
    #if canImport(Glibc)
        import Glibc
    #endif

    /// libsecret, loaded on first use instead of linked: a process that never opens the Secret
    /// Service does not map libsecret, GIO, GObject and GLib. ``shared`` loads it and resolves every
    /// function once, the first time it is read (Swift runs a static's initializer exactly once,
    /// whichever threads race to it); the library then stays loaded.
    ///
    /// `@unchecked Sendable`: the function table is filled before `init` and never written again.
    final class SecretServiceLibrary: @unchecked Sendable {
        /// The name `dlopen` looks up: the soname of libsecret 0.x (Debian's `libsecret-1-0`).
        static let defaultName = "libsecret-1.so.0"

        /// The process's libsecret, or why it cannot be loaded.
        static let shared = load(named: defaultName)

        /// libsecret's (and GLib's) functions, at a stable address the C helpers take.
        let api: UnsafePointer<sybil_secret_api>

        private init(api: UnsafePointer<sybil_secret_api>) {
            self.api = api
        }

        deinit { api.deallocate() }

        /// Loads the library `name` and resolves the functions Sybil calls. The error names the
        /// library and says what went wrong (dlopen's message, or the missing function).
        static func load(named name: String) -> Result<SecretServiceLibrary, SecretServiceError> {
            let operation = "load the Secret Service client library \(name)"
            guard let handle = dlopen(name, RTLD_NOW | RTLD_LOCAL) else {
                let reason = dlerror().map { String(cString: $0) } ?? "not found"
                return .failure(SecretServiceError(operation: operation, message: reason))
            }
            let table = UnsafeMutablePointer<sybil_secret_api>.allocate(capacity: 1)
            if let missing = sybil_secret_api_load(handle, table) {
                table.deallocate()
                dlclose(handle)
                return .failure(
                    SecretServiceError(operation: operation, message: "it has no function \(String(cString: missing))"))
            }
            return .success(SecretServiceLibrary(api: UnsafePointer(table)))
        }
    }
#endif
