#if os(Linux)
    import Foundation
    @testable import SybilImaging
    import Testing

    /// libheif is loaded on first use; a library that cannot be loaded, or lacks a function Sybil
    /// calls, makes HEIF work fail with an error naming the library instead of stopping the process.
    @Suite("libheif loaded on first use", .timeLimit(.minutes(1)))
    struct HEIFLibraryTests {
        private func fixture() throws -> [UInt8] {
            let url = try #require(
                Bundle.module.url(forResource: "gradient-96x64", withExtension: "heic", subdirectory: "Fixtures"))
            return try [UInt8](Data(contentsOf: url))
        }

        @Test func theInstalledLibraryLoadsAndReadsAnImage() throws {
            let heic = try fixture()
            #expect(
                try HEIFCodec.dimensions(heic, library: HEIFLibrary.load(named: HEIFLibrary.defaultName)) == (96, 64))
        }

        @Test func aLibraryThatCannotBeLoadedIsAnErrorNamingIt() throws {
            let heic = try fixture()
            let absent = HEIFLibrary.load(named: "libheif-absent.so.1")
            do {
                _ = try HEIFCodec.dimensions(heic, library: absent)
                Issue.record("reading a HEIC without libheif succeeded")
            } catch {
                #expect(error.message.contains("cannot load libheif (libheif-absent.so.1)"), "\(error.message)")
            }
        }

        @Test func aLibraryWithoutLibheifsFunctionsIsAnErrorNamingTheFirstMissing() {
            // libpng is loaded in every process that links SybilImaging, and has no heif_ functions.
            guard case .failure(let error) = HEIFLibrary.load(named: "libpng16.so.16") else {
                Issue.record("libpng was accepted as libheif")
                return
            }
            #expect(error.message == "cannot use libheif (libpng16.so.16): it has no function heif_context_alloc")
        }
    }
#endif
