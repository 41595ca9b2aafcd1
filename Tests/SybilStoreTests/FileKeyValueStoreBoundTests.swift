import Foundation
import SybilStore
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A huge or corrupt file in the data folder is not read into memory: its size is asked
/// first, it is reported with its size and the limit, and it stays where it is.
@Suite("The file key-value store's bound on a value", .timeLimit(.minutes(1)))
struct FileKeyValueStoreBoundTests {
    /// A fresh directory per test, removed afterwards.
    private func withDirectory(_ body: (String) throws -> Void) throws {
        let path = FileManager.default.temporaryDirectory
            .appendingPathComponent("sybil-kv-bound-\(UUID().uuidString.prefix(8))").path
        try AtomicFile.createDirectory(path)
        defer { try? FileManager.default.removeItem(atPath: path) }
        try body(path)
    }

    /// Makes `path` a sparse file of `size` bytes (no block written, so the test stays fast).
    static func makeSparseFile(_ path: String, size: Int) throws {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw StorageError(operation: "create", path: path, reason: "\(errno)") }
        defer { close(descriptor) }
        guard ftruncate(descriptor, off_t(size)) == 0 else {
            throw StorageError(operation: "truncate", path: path, reason: "\(errno)")
        }
    }

    @Test func aFileOneBytePastTheLimitIsReportedNotReadAndLeftInPlace() throws {
        try withDirectory { directory in
            let store = try FileKeyValueStore(directory: directory)
            let size = FileKeyValueStore.maximumValueBytes + 1
            try Self.makeSparseFile(store.path(forKey: "huge"), size: size)
            let error = try #require(throws: StorageError.self) { _ = try store.data(forKey: "huge") }
            #expect(error.operation == "read")
            #expect(error.path == store.path(forKey: "huge"))
            #expect(error.reason.contains("\(size) bytes"), "\(error)")
            #expect(error.reason.contains("limit of \(FileKeyValueStore.maximumValueBytes) bytes"), "\(error)")
            #expect(error.reason.contains("left in place"), "\(error)")
            // Still there, whole: nothing removed or replaced it.
            let attributes = try FileManager.default.attributesOfItem(atPath: store.path(forKey: "huge"))
            #expect((attributes[.size] as? NSNumber)?.intValue == size)
        }
    }

    @Test func aValuePastTheLimitIsNotWrittenAndTheOneBeforeStays() throws {
        try withDirectory { directory in
            let store = try FileKeyValueStore(directory: directory)
            try store.set(Array("kept".utf8), forKey: "value")
            let tooLarge = [UInt8](repeating: 0x20, count: FileKeyValueStore.maximumValueBytes + 1)
            let error = try #require(throws: StorageError.self) { try store.set(tooLarge, forKey: "value") }
            #expect(error.operation == "write")
            #expect(error.reason.contains("the value stored before stays"), "\(error)")
            #expect(try store.data(forKey: "value") == Array("kept".utf8))
            #expect(!FileManager.default.fileExists(atPath: AtomicFile.temporaryPath(for: store.path(forKey: "value"))))
        }
    }

    @Test func theLimitIsTheJSONReadersSoEveryStoredDocumentCanBeParsed() {
        #expect(FileKeyValueStore.maximumValueBytes == 64 << 20)
    }
}
