#if os(Linux)
    @testable import SybilStore
    import Testing

    /// libsecret is loaded the first time a Secret Service store is made; a library that cannot be
    /// loaded, or lacks a function Sybil calls, is a ``SecretServiceError`` naming the library, the
    /// same kind of error as a service that does not answer (so the file store takes over).
    @Suite("libsecret loaded on first use")
    struct SecretServiceLibraryTests {
        @Test func theInstalledLibraryHasEveryFunctionSybilCalls() {
            let library = SecretServiceLibrary.load(named: SecretServiceLibrary.defaultName)
            if case .failure(let error) = library {
                Issue.record("\(error)")
            }
        }

        @Test func aLibraryThatCannotBeLoadedIsAnErrorNamingIt() {
            let absent = SecretServiceLibrary.load(named: "libsecret-absent.so.0")
            do {
                _ = try SecretServiceKeyStore(library: absent)
                Issue.record("a Secret Service store opened without libsecret")
            } catch {
                #expect(error.operation == "load the Secret Service client library libsecret-absent.so.0")
                #expect(error.message.contains("libsecret-absent.so.0"), "dlopen's reason: \(error.message)")
            }
        }

        @Test func aLibraryWithoutLibsecretsFunctionsIsAnErrorNamingTheFirstMissing() {
            // SQLite is loaded in every process that links SybilStore, and has no Secret Service.
            guard case .failure(let error) = SecretServiceLibrary.load(named: "libsqlite3.so.0") else {
                Issue.record("SQLite was accepted as libsecret")
                return
            }
            #expect(
                error.description == "cannot load the Secret Service client library libsqlite3.so.0: "
                    + "it has no function secret_service_get_sync")
        }
    }
#endif
