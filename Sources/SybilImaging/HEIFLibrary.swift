#if canImport(CHEIF)
    import CHEIF
    #if canImport(Glibc)
        import Glibc
    #endif

    /// libheif, loaded on first use instead of linked: a process that converts no photo never maps
    /// libheif and its codecs (x265, libde265, aom). ``shared`` loads it and resolves every function
    /// once, the first time it is read (Swift runs a static's initializer exactly once, whichever
    /// threads race to it); the library then stays loaded.
    ///
    /// `@unchecked Sendable`: the function table is filled before `init` and never written again.
    final class HEIFLibrary: @unchecked Sendable {
        /// The name `dlopen` looks up: the soname of libheif 1.x.
        static let defaultName = "libheif.so.1"

        /// The process's libheif, or why it cannot be loaded.
        static let shared = load(named: defaultName)

        /// libheif's functions.
        let api: sybil_heif_api

        private init(api: sybil_heif_api) {
            self.api = api
        }

        /// Loads the library `name` and resolves the functions Sybil calls. The error names the
        /// library and says what went wrong (dlopen's message, or the missing function).
        static func load(named name: String) -> Result<HEIFLibrary, ImageConversionError> {
            guard let handle = dlopen(name, RTLD_NOW | RTLD_LOCAL) else {
                let reason = dlerror().map { String(cString: $0) } ?? "not found"
                return .failure(
                    ImageConversionError("cannot load libheif (\(name)) to read HEIC/HEIF images: \(reason)"))
            }
            let table = UnsafeMutablePointer<sybil_heif_api>.allocate(capacity: 1)
            defer { table.deallocate() }
            if let missing = sybil_heif_api_load(handle, table) {
                dlclose(handle)
                return .failure(
                    ImageConversionError("cannot use libheif (\(name)): it has no function \(String(cString: missing))")
                )
            }
            return .success(HEIFLibrary(api: table.pointee))
        }
    }
#endif
