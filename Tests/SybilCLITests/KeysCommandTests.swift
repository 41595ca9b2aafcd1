import Foundation
import Testing

@testable import SybilCLI

/// `sybil keys` through the file store (no session bus in the injected environment), with the
/// data home in a temporary directory.
@Suite("sybil keys", .timeLimit(.minutes(2)))
struct KeysCommandTests {
    static let secret = "sk-test-9f8e7d6c5b4a"

    private func withDataHome(_ body: (String) async throws -> Void) async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent(
            "sybil-keys-cli-\(UUID().uuidString.prefix(8))"
        ).path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try await body(path)
    }

    private func io(_ dataHome: String, stdin: String = "") -> TestIO {
        TestIO(stdin: Array(stdin.utf8), environment: ["XDG_DATA_HOME": dataHome, "HOME": "/nonexistent"])
    }

    @Test(
        "help is printed verbatim",
        arguments: [
            (["keys"], "keys-help.txt"),
            (["keys", "--help"], "keys-help.txt"),
            (["keys", "set", "--help"], "keys-set-help.txt"),
            (["keys", "set", "openai", "-h"], "keys-set-help.txt"),
            (["keys", "list", "--help"], "keys-list-help.txt"),
            (["keys", "remove", "--help"], "keys-remove-help.txt"),
        ])
    func help(arguments: [String], file: String) async throws {
        let test = TestIO()
        #expect(await test.run(arguments) == 0)
        #expect(test.stdout == (try golden(file)))
        #expect(test.stderr == "")
    }

    @Test func setListRemoveThroughTheFileStore() async throws {
        try await withDataHome { home in
            let set = io(home, stdin: Self.secret + "\n")
            #expect(await set.run("keys", "set", "openai") == 0)
            #expect(set.stdout == "")
            #expect(set.stderr.contains("stored 'openai' in the files \(home)/sybil/keys/*.key (0600)."))
            #expect(set.stderr.contains("Keys are kept in the files \(home)/sybil/keys/*.key (0600)"))
            let file = "\(home)/sybil/keys/openai.key"
            let stored = try String(contentsOfFile: file, encoding: .utf8)
            #expect(stored == Self.secret)
            let attributes = try FileManager.default.attributesOfItem(atPath: file)
            #expect((attributes[.posixPermissions] as? Int) == 0o600)

            #expect(await io(home, stdin: "gsk-other").run("keys", "set", "groq") == 0)
            let list = io(home)
            #expect(await list.run("keys", "list") == 0)
            #expect(list.stdout == "groq\nopenai\n")
            #expect(list.stderr.contains("sybil keys list: 2 keys in the files \(home)/sybil/keys/*.key (0600).\n"))

            let remove = io(home)
            #expect(await remove.run("keys", "remove", "openai") == 0)
            #expect(remove.stderr.contains("removed 'openai'"))
            #expect(!FileManager.default.fileExists(atPath: file))
            let again = io(home)
            #expect(await again.run("keys", "remove", "openai") == 66)
            #expect(again.stderr.contains("there is no key 'openai' in the files"))

            for test in [set, list, remove, again] {
                #expect(!test.stdout.contains(Self.secret))
                #expect(!test.stderr.contains(Self.secret))
            }
        }
    }

    @Test func onlyOneTrailingNewlineIsDroppedAndCarriageReturnLineFeedCounts() async throws {
        try await withDataHome { home in
            #expect(await io(home, stdin: "a b \n\n").run("keys", "set", "one") == 0)
            let one = try String(contentsOfFile: "\(home)/sybil/keys/one.key", encoding: .utf8)
            #expect(one == "a b \n")
            #expect(await io(home, stdin: "tok\r\n").run("keys", "set", "two") == 0)
            let two = try String(contentsOfFile: "\(home)/sybil/keys/two.key", encoding: .utf8)
            #expect(two == "tok")
        }
    }

    @Test func anEmptyKeyIsRefusedAndNothingIsStored() async throws {
        try await withDataHome { home in
            for input in ["", "\n"] {
                let test = io(home, stdin: input)
                #expect(await test.run("keys", "set", "openai") == 65)
                #expect(test.stderr.contains("the key read from standard input is empty"))
            }
            #expect(!FileManager.default.fileExists(atPath: "\(home)/sybil/keys/openai.key"))
        }
    }

    @Test func aKeyThatIsNotUTF8IsRefused() async throws {
        try await withDataHome { home in
            let test = TestIO(stdin: [0x73, 0xFF, 0x6B], environment: ["XDG_DATA_HOME": home])
            #expect(await test.run("keys", "set", "openai") == 65)
            #expect(test.stderr.contains("not UTF-8 text"))
        }
    }

    @Test func aKeyGivenAsAnArgumentIsRefusedWithoutBeingQuoted() async throws {
        try await withDataHome { home in
            let test = io(home)
            #expect(await test.run("keys", "set", "openai", Self.secret) == 64)
            #expect(
                test.stderr
                    == "sybil keys set: takes only NAME; a key is read from standard input, never from an argument\n"
                    + "Run 'sybil keys set --help' for usage.\n")
            #expect(!FileManager.default.fileExists(atPath: "\(home)/sybil/keys"))
        }
    }

    @Test func aBadNameIsAUsageErrorBeforeAnythingIsRead() async throws {
        try await withDataHome { home in
            let test = io(home, stdin: Self.secret)
            #expect(await test.run("keys", "set", "../etc") == 64)
            #expect(
                test.stderr
                    == "sybil keys set: The key name '../etc' is not valid; use 1 to 64 letters, digits, '.', '_' or '-'.\n"
                    + "Run 'sybil keys set --help' for usage.\n")
            let missing = io(home)
            #expect(await missing.run("keys", "remove") == 64)
            #expect(missing.stderr.hasPrefix("sybil keys remove: needs the key's NAME"))
            let unknown = io(home)
            #expect(await unknown.run("keys", "show", "x") == 64)
            #expect(!FileManager.default.fileExists(atPath: "\(home)/sybil/keys"))
        }
    }

    @Test func listWithNoKeysPrintsNothing() async throws {
        try await withDataHome { home in
            let test = io(home)
            #expect(await test.run("keys", "list") == 0)
            #expect(test.stdout == "")
            #expect(test.stderr.contains("0 keys in the files"))
        }
    }

    @Test func typedKeysAreEditedLikeALine() {
        var line: [UInt8] = []
        for byte in Array("sk-é".utf8) { #expect(TerminalSecretInput.edit(&line, with: byte) == .more) }
        #expect(TerminalSecretInput.edit(&line, with: 0x7F) == .more)
        #expect(line == Array("sk-".utf8))
        #expect(TerminalSecretInput.edit(&line, with: 0x1B) == .more)
        #expect(line == Array("sk-".utf8))
        #expect(TerminalSecretInput.edit(&line, with: 0x15) == .more)
        #expect(line.isEmpty)
        #expect(TerminalSecretInput.edit(&line, with: 0x61) == .more)
        #expect(TerminalSecretInput.edit(&line, with: 0x0D) == .done)
        #expect(TerminalSecretInput.edit(&line, with: 0x04) == .done)
        #expect(TerminalSecretInput.edit(&line, with: 0x03) == .cancelled)
        #expect(line == [0x61])
    }
}
