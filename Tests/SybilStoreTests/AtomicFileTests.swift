import Foundation
import SybilStore
import Testing

@Suite("Atomic files and the file key-value store", .timeLimit(.minutes(2)))
struct AtomicFileTests {
    struct SimulatedCrash: Error {}

    /// A fresh directory per test, removed afterwards.
    private func withDirectory(_ body: (String) throws -> Void) throws {
        let path = FileManager.default.temporaryDirectory
            .appendingPathComponent("sybil-store-\(UUID().uuidString.prefix(8))").path
        try AtomicFile.createDirectory(path)
        defer { try? FileManager.default.removeItem(atPath: path) }
        try body(path)
    }

    @Test(
        "a crash after any step leaves the old or the new content, never a mix",
        arguments: AtomicFile.Step.allCases)
    func crashAfterStep(step: AtomicFile.Step) throws {
        try withDirectory { directory in
            let path = directory + "/value"
            let old = Array(repeating: UInt8(ascii: "o"), count: 100_000)
            let new = Array(repeating: UInt8(ascii: "n"), count: 150_000)
            try AtomicFile.write(old, to: path)
            #expect(throws: SimulatedCrash.self) {
                try AtomicFile.write(new, to: path) { reached in
                    if reached == step { throw SimulatedCrash() }
                }
            }
            let after = try #require(try AtomicFile.read(path))
            let renamed =
                AtomicFile.Step.allCases.firstIndex(of: step)! >= AtomicFile.Step.allCases.firstIndex(of: .renamed)!
            #expect(after == (renamed ? new : old), "after \(step)")
            // The next write succeeds over whatever the crash left behind.
            try AtomicFile.write([1, 2, 3], to: path)
            #expect(try AtomicFile.read(path) == [1, 2, 3])
        }
    }

    @Test func newFilesAreOwnerOnly() throws {
        try withDirectory { directory in
            try AtomicFile.write([1], to: directory + "/secret")
            let attributes = try FileManager.default.attributesOfItem(atPath: directory + "/secret")
            #expect((attributes[.posixPermissions] as? Int) == 0o600)
            let directoryAttributes = try FileManager.default.attributesOfItem(atPath: directory)
            #expect((directoryAttributes[.posixPermissions] as? Int) == 0o700)
        }
    }

    @Test func readingAMissingFileIsNil() throws {
        try withDirectory { directory in
            #expect(try AtomicFile.read(directory + "/missing") == nil)
            try AtomicFile.remove(directory + "/missing")
        }
    }

    @Test func errorsNameTheOperationAndPath() throws {
        let error = try #require(throws: StorageError.self) {
            try AtomicFile.write([1], to: "/nonexistent-sybil-dir/value")
        }
        #expect(error.description == "cannot create '/nonexistent-sybil-dir/value.tmp': No such file or directory")
    }

    @Test func keyValueStoreRoundTripsAndRemoves() throws {
        try withDirectory { directory in
            let store = try FileKeyValueStore(directory: directory + "/kv")
            #expect(try store.data(forKey: "workspace-chat-local-outbox-v2") == nil)
            try store.set(Array("hello".utf8), forKey: "workspace-chat-local-outbox-v2")
            #expect(try store.data(forKey: "workspace-chat-local-outbox-v2") == Array("hello".utf8))
            let reopened = try FileKeyValueStore(directory: directory + "/kv")
            #expect(try reopened.data(forKey: "workspace-chat-local-outbox-v2") == Array("hello".utf8))
            try store.removeValue(forKey: "workspace-chat-local-outbox-v2")
            #expect(try store.data(forKey: "workspace-chat-local-outbox-v2") == nil)
        }
    }

    @Test func theStandardStoreLivesInTheXDGDataHome() throws {
        try withDirectory { directory in
            let store = try FileKeyValueStore.standard(environment: ["HOME": "/unused", "XDG_DATA_HOME": directory])
            #expect(store.directory == directory + "/sybil/preferences")
            try store.set([1], forKey: "k")
            #expect(FileManager.default.fileExists(atPath: directory + "/sybil/preferences/k"))
        }
    }

    @Test func keysAreCheckedForm() {
        #expect(KeyValueStoreKey.isValid("workspace-chat-local-outbox-v2"))
        #expect(KeyValueStoreKey.isValid("a.b_c-1"))
        for bad in ["", "../etc", "a/b", ".hidden", "with space", String(repeating: "k", count: 201)] {
            #expect(!KeyValueStoreKey.isValid(bad), "\(bad)")
        }
        #expect(KeyValueStoreKey.isValid(String(repeating: "k", count: 200)))
    }

    @Test func xdgDirectoriesFollowTheEnvironment() {
        let defaults = XDGDirectories(environment: ["HOME": "/home/ana"])
        #expect(defaults.dataHome == "/home/ana/.local/share")
        #expect(defaults.configHome == "/home/ana/.config")
        #expect(defaults.sybilData == "/home/ana/.local/share/sybil")
        let set = XDGDirectories(environment: [
            "HOME": "/home/ana", "XDG_DATA_HOME": "/data", "XDG_CONFIG_HOME": "/cfg",
        ])
        #expect(set.dataHome == "/data" && set.configHome == "/cfg")
        let relative = XDGDirectories(environment: ["HOME": "/home/ana", "XDG_DATA_HOME": "data"])
        #expect(relative.dataHome == "/home/ana/.local/share", "relative values are ignored")
    }
}
