import Foundation
import SybilCore
import Testing

@testable import SybilStore

@Suite("Key stores", .timeLimit(.minutes(2)))
struct KeyStoreTests {
    private func withDirectory(_ body: (String) throws -> Void) throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent(
            "sybil-keys-\(UUID().uuidString.prefix(8))"
        ).path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try body(path)
    }

    private func mode(_ path: String) throws -> Int? {
        try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
    }

    @Test(arguments: ["a", "openai", "OPENAI_API_KEY", "my-key.v2", ".", "..", String(repeating: "k", count: 64)])
    func validNames(name: String) throws {
        try KeyStores.validate(name: name)
    }

    @Test(arguments: ["", String(repeating: "k", count: 65), "a/b", "../x", "a b", "é", "a\nb", "key=1"])
    func invalidNamesAreRefusedQuotingTheName(name: String) {
        #expect(throws: KeyNameError(name: name)) { try KeyStores.validate(name: name) }
    }

    @Test func theNameErrorIsOneSentenceQuotingTheNameWithoutControlCharacters() {
        #expect(
            KeyNameError(name: "a/b").description
                == "The key name 'a/b' is not valid; use 1 to 64 letters, digits, '.', '_' or '-'.")
        #expect(!KeyNameError(name: "a\nb\u{1B}").description.contains("\n"))
        #expect(!KeyNameError(name: "a\nb\u{1B}").description.contains("\u{1B}"))
    }

    @Test func fileKeysAreOwnerOnlyFilesInAnOwnerOnlyDirectory() throws {
        try withDirectory { directory in
            let store = FileKeyStore(directory: directory + "/keys")
            #expect(try store.keyNames() == [])
            #expect(try store.key(named: "openai") == nil)
            try store.setKey("sk-one", named: "openai")
            try store.setKey("gsk-two", named: "groq")
            #expect(try store.key(named: "openai") == "sk-one")
            #expect(try mode(directory + "/keys/openai.key") == 0o600)
            #expect(try mode(directory + "/keys") == 0o700)
            #expect(try store.keyNames() == ["groq", "openai"])
            try store.setKey("sk-three", named: "openai")
            #expect(try store.key(named: "openai") == "sk-three")
            #expect(try store.removeKey(named: "openai"))
            #expect(try !store.removeKey(named: "openai"))
            #expect(try store.keyNames() == ["groq"])
            #expect(store.location == "the files \(directory)/keys/*.key (0600)")
        }
    }

    @Test func dotNamesStayPlainFilesInTheDirectory() throws {
        try withDirectory { directory in
            let store = FileKeyStore(directory: directory + "/keys")
            try store.setKey("one", named: ".")
            try store.setKey("two", named: "..")
            #expect(try store.keyNames() == [".", ".."])
            #expect(try store.key(named: "..") == "two")
            #expect(FileManager.default.fileExists(atPath: directory + "/keys/...key"))
        }
    }

    @Test func aWritesTemporaryFileAndOtherFilesAreNotKeys() throws {
        try withDirectory { directory in
            let store = FileKeyStore(directory: directory + "/keys")
            try store.setKey("one", named: "a")
            try AtomicFile.write(Array("half".utf8), to: directory + "/keys/b.key.tmp")
            try AtomicFile.write(Array("x".utf8), to: directory + "/keys/notes.txt")
            #expect(try store.keyNames() == ["a"])
        }
    }

    @Test func aDirectoryOthersCanReadIsRefused() throws {
        try withDirectory { directory in
            let store = FileKeyStore(directory: directory + "/keys")
            try store.setKey("one", named: "a")
            chmod(directory + "/keys", 0o755)
            #expect(throws: SecretStoreError.insecurePermissions(path: directory + "/keys", mode: 0o755)) {
                try store.key(named: "a")
            }
            #expect(throws: SecretStoreError.self) { try store.keyNames() }
        }
    }

    @Test func aKeyFileOthersCanReadIsRefused() throws {
        try withDirectory { directory in
            let store = FileKeyStore(directory: directory + "/keys")
            try store.setKey("one", named: "a")
            chmod(directory + "/keys/a.key", 0o644)
            #expect(throws: SecretStoreError.insecurePermissions(path: directory + "/keys/a.key", mode: 0o644)) {
                try store.key(named: "a")
            }
        }
    }

    @Test func withoutASessionBusKeysGoToTheFileStoreWithANotice() throws {
        try withDirectory { directory in
            let (store, notice) = try KeyStores.open(environment: ["XDG_DATA_HOME": directory, "HOME": "/nonexistent"])
            #expect(store is FileKeyStore)
            #expect(store.location == "the files \(directory)/sybil/keys/*.key (0600)")
            let sentence = try #require(notice)
            #expect(sentence.contains("\(directory)/sybil/keys"))
            #expect(!sentence.contains("\n"))
        }
    }

    @Test func fileKeysMoveIntoTheServiceOnceAndTheServicesOwnCopyWins() throws {
        try withDirectory { directory in
            let file = FileKeyStore(directory: directory + "/keys")
            try file.setKey("old-a", named: "a")
            try file.setKey("old-b", named: "b")
            let service = RecordingKeyStore(["b": "service-b"])
            #expect(try KeyStores.move(from: file, to: service) == 1)
            #expect(service.all == ["a": "old-a", "b": "service-b"])
            #expect(try file.keyNames() == [])
            #expect(try KeyStores.move(from: file, to: service) == 0)
        }
    }

    @Test func aMoveThatFailsLeavesTheKeyInTheFile() throws {
        try withDirectory { directory in
            let file = FileKeyStore(directory: directory + "/keys")
            try file.setKey("old-a", named: "a")
            let service = RecordingKeyStore([:], failing: true)
            #expect(throws: SecretServiceError.self) { try KeyStores.move(from: file, to: service) }
            #expect(try file.key(named: "a") == "old-a")
        }
    }
}

/// A key store in memory that stands in for the Secret Service.
private final class RecordingKeyStore: KeyStore {
    private let keys: Locked<[String: String]>

    private let failing: Bool

    init(_ keys: [String: String], failing: Bool = false) {
        self.keys = Locked(keys)
        self.failing = failing
    }

    var all: [String: String] { keys.withLock { $0 } }
    var location: String { "the test store" }
    func key(named name: String) throws -> String? { keys.withLock { $0[name] } }
    func setKey(_ secret: String, named name: String) throws {
        if failing {
            throw SecretServiceError(operation: "store the key '\(name)'", message: "the collection is locked")
        }
        keys.withLock { $0[name] = secret }
    }
    func removeKey(named name: String) throws -> Bool { keys.withLock { $0.removeValue(forKey: name) != nil } }
    func keyNames() throws -> [String] { keys.withLock { $0.keys.sorted() } }
}
