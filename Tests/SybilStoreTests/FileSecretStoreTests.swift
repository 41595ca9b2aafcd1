import Foundation
import SybilStore
import Testing

@Suite("File secret store", .timeLimit(.minutes(2)))
struct FileSecretStoreTests {
    private func withDirectory(_ body: (String) throws -> Void) throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent(
            "sybil-secrets-\(UUID().uuidString.prefix(8))"
        ).path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try body(path)
    }

    @Test func secretsAreOwnerOnlyFilesInAnOwnerOnlyDirectory() throws {
        try withDirectory { directory in
            let store = try FileSecretStore(directory: directory + "/secrets")
            try store.setSecret("t0k3n", for: "session-token")
            #expect(try store.secret(for: "session-token") == "t0k3n")
            let file = try FileManager.default.attributesOfItem(atPath: directory + "/secrets/session-token")
            #expect((file[.posixPermissions] as? Int) == 0o600)
            let folder = try FileManager.default.attributesOfItem(atPath: directory + "/secrets")
            #expect((folder[.posixPermissions] as? Int) == 0o700)
            try store.removeSecret(for: "session-token")
            #expect(try store.secret(for: "session-token") == nil)
        }
    }

    @Test func aFileOthersCanReadIsRefused() throws {
        try withDirectory { directory in
            let store = try FileSecretStore(directory: directory)
            try store.setSecret("t0k3n", for: "session-token")
            let path = directory + "/session-token"
            try FileManager.default.setAttributes([.posixPermissions: 0o640], ofItemAtPath: path)
            let error = try #require(throws: SecretStoreError.self) { try store.secret(for: "session-token") }
            #expect(error == .insecurePermissions(path: path, mode: 0o640))
            #expect(
                error.description
                    == "\(path) is readable by other users (mode 640); it was not used. To fix, run: chmod go-rwx '\(path)'"
            )
            #expect(!error.description.contains("t0k3n"), "the secret never appears in messages")
        }
    }

    @Test func aDirectoryOthersCanEnterIsRefused() throws {
        try withDirectory { directory in
            let store = try FileSecretStore(directory: directory)
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: directory)
            #expect(throws: SecretStoreError.insecurePermissions(path: directory, mode: 0o755)) {
                try store.setSecret("t", for: "session-token")
            }
        }
    }

    @Test func theStandardStoreIsUnderTheXDGConfigHome() throws {
        try withDirectory { directory in
            let store = try FileSecretStore.standard(environment: ["HOME": "/unused", "XDG_CONFIG_HOME": directory])
            #expect(store.directory == directory + "/sybil/secrets")
        }
    }
}
