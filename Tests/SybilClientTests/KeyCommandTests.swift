import Foundation
import SybilClient
import SybilNet
import SybilStore
import Testing

/// A profile's `key_command`: its trimmed output is the key; a failure, no output, too much
/// output or too long a run is an error naming the command, never the output.
@Suite("Key command")
struct KeyCommandTests {
    private let environment = ["PATH": "/usr/bin:/bin"]

    @Test func theTrimmedOutputIsTheKey() async throws {
        let key = try await KeyCommand(
            "printf '  fresh-key\\n\\n'; echo ignored-by-stderr >&2", environment: environment
        ).run()
        #expect(key == "fresh-key")
    }

    @Test func theCommandSeesTheGivenEnvironment() async throws {
        let key = try await KeyCommand("echo \"$SECRET_SOURCE\"", environment: ["SECRET_SOURCE": "from-env"]).run()
        #expect(key == "from-env")
    }

    @Test func failuresNameTheCommandAndNeverTheOutput() async {
        await #expect(throws: KeyCommandError(command: "echo s3cret; exit 3", problem: "failed with status 3")) {
            try await KeyCommand("echo s3cret; exit 3", environment: environment).run()
        }
        await #expect(throws: KeyCommandError(command: "true", problem: "printed no key")) {
            try await KeyCommand("true", environment: environment).run()
        }
        await #expect(throws: KeyCommandError(command: "printf 'a\\nb'", problem: "printed more than one line")) {
            try await KeyCommand("printf 'a\\nb'", environment: environment).run()
        }
        let error = KeyCommandError(command: "pass show x", problem: "printed no key")
        #expect(error.description == "the key command 'pass show x' printed no key; fix key_command in config.toml")
    }

    @Test func outputIsBoundedAtSixtyFourKibibytes() async throws {
        #expect(KeyCommand.outputLimit == 65_536)
        let exact = try await KeyCommand("head -c 65536 /dev/zero | tr '\\0' k", environment: environment).run()
        #expect(exact.utf8.count == 65_536)
        await #expect(
            throws: KeyCommandError(
                command: "head -c 65537 /dev/zero | tr '\\0' k", problem: "printed more than 65536 bytes")
        ) {
            try await KeyCommand("head -c 65537 /dev/zero | tr '\\0' k", environment: environment).run()
        }
    }

    @Test func aCommandThatHangsIsKilledAtItsLimit() async {
        #expect(KeyCommand.timeout == .seconds(10))
        // The timeout path, not the command's end: `sleep 30` would exit 0 and print nothing.
        // (No elapsed-time bound: on a loaded machine starting and reaping a child takes
        // seconds of real time, and the rule is which path was taken.)
        do {
            _ = try await KeyCommand("sleep 30", environment: environment, limit: .milliseconds(300)).run()
            Issue.record("a command that hangs gave a key")
        } catch {
            #expect(error.problem == "did not finish within \(Duration.milliseconds(300))")
        }
    }

    @Test func theRefresherRunsTheCommandForTheTokenChain() async throws {
        let tokens = TokenProvider(
            current: TokenLocation(store: InMemorySecretStore(["a": "old"]), account: "a"),
            refresher: KeyCommandRefresher(command: KeyCommand("echo renewed", environment: environment)))
        #expect(try await tokens.token() == "old")
        #expect(try await tokens.refresh() == "renewed")
        #expect(try await tokens.token() == "renewed")
    }
}
