import Foundation
import SybilCore
import SybilServer
import SybilTesting
import Testing

@testable import SybilCLI

/// `sybil workspaces list|open|send` against the reference server over real sockets.
@Suite("sybil workspaces", .timeLimit(.minutes(2)))
struct WorkspacesCommandTests {
    private static let token = "cli-token"

    private func server(_ configure: (inout SybilServerOptions) -> Void = { _ in }) throws -> ReferenceServer {
        var options = SybilServerOptions(token: Self.token)
        options.pace = .zero
        configure(&options)
        return try ReferenceServer(options: options)
    }

    private func io(_ server: ReferenceServer, data: URL) -> TestIO {
        TestIO(environment: [
            "SYBIL_API_URL": server.baseURL.absoluteString, "SYBIL_TOKEN": Self.token, "XDG_DATA_HOME": data.path,
        ])
    }

    private func temporaryDirectory() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("sybil-cli-\(UUID().uuidString)")
    }

    @Test func listShowsDesktopsProjectsAndSessionsWithTheirState() async throws {
        let server = try server()
        defer { Task { await server.shutdown() } }
        let test = io(server, data: temporaryDirectory())
        #expect(await test.run("workspaces", "list") == 0)
        let lines = test.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first == "desk-1  Studio Mac  online")
        #expect(lines.contains("  proj-app  App  /Users/ana/src/app"))
        #expect(lines.contains { $0.hasPrefix("    sess-42  Fix login  updated 2025-11-29 ") })
        #expect(lines.last == "desk-2  Build Box  offline")
        #expect(test.stderr == "")
    }

    @Test func openWithoutFollowPrintsTheDisplayRowsAndExits() async throws {
        let server = try server()
        defer { Task { await server.shutdown() } }
        let test = io(server, data: temporaryDirectory())
        #expect(await test.run("workspaces", "open", "desk-1/proj-site/sess-50", "--no-follow") == 0)
        let lines = test.stdout.split(separator: "\n").map(String.init)
        // Two seeded turns: user, activity, reply each; thinking rows are not in the list.
        #expect(lines.count == 6)
        #expect(lines.first == "[user] Landing page: question 1")
        #expect(lines.allSatisfy { !$0.hasPrefix("[thinking") })
        #expect(lines.filter { $0.hasPrefix("[agent] ") }.count == 2)
    }

    @Test func openPrintsASubagentThread() async throws {
        let server = try server()
        defer { Task { await server.shutdown() } }
        let test = io(server, data: temporaryDirectory())
        #expect(await test.run("workspaces", "open", "sess-42", "--thread", "thr-7") == 0)
        #expect(test.stdout.hasPrefix("[activity] Subagent step "))
        let unknown = io(server, data: temporaryDirectory())
        #expect(await unknown.run("workspaces", "open", "sess-42", "--thread", "thr-nope") == 65)
        #expect(unknown.stderr.contains("thr-nope"))
    }

    @Test func openFollowsWhatAnotherCommandSendsUntilStopped() async throws {
        let server = try server()
        defer { Task { await server.shutdown() } }
        let data = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: data) }
        let follower = io(server, data: data)
        let following = Task { await follower.run("workspaces", "open", "sess-43") }
        let sender = io(server, data: data)
        // Following starts once the window is printed (empty here) and the feed is up.
        await follower.waitForStderr(containing: "following")
        #expect(await sender.run("workspaces", "send", "sess-43", "Ping", "from", "the", "CLI") == 0)
        #expect(sender.stdout == "accepted by desk-1: desk-1/proj-app/sess-43\n")
        await follower.waitForOutput(containing: "[user] Ping from the CLI")
        await follower.waitForOutput(containing: "[agent] ")
        follower.terminate()
        #expect(await following.value == 0)
    }

    @Test func sendSavesFirstAndTheNextSendDeliversWhatAnUnreachableServerMissed() async throws {
        let data = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: data) }
        let closed = try RefusingPort()
        let unreachable = closed.url.absoluteString
        let offline = TestIO(environment: [
            "SYBIL_API_URL": unreachable, "SYBIL_TOKEN": Self.token, "XDG_DATA_HOME": data.path,
        ])
        #expect(await offline.run("workspaces", "send", "desk-1/proj-app/sess-43", "Saved", "first") == 69)
        #expect(offline.stderr.contains("it stays in the outbox"))
        withExtendedLifetime(closed) {}

        let server = try server()
        defer { Task { await server.shutdown() } }
        let online = io(server, data: data)
        #expect(await online.run("workspaces", "send", "sess-43", "Second") == 0)
        #expect(online.stderr.contains("sending 1 earlier message(s) left in the outbox first"))
        let reader = io(server, data: data)
        #expect(await reader.run("workspaces", "open", "sess-43", "--no-follow") == 0)
        // The second turn may still be running (live) when the reader looks; each message is
        // there once, in order, either way.
        let users = reader.stdout.split(separator: "\n").filter { $0.hasPrefix("[user") }.map {
            $0.split(separator: "] ", maxSplits: 1).last.map(String.init) ?? ""
        }
        #expect(users == ["Saved first", "Second"], "once each, in order")
    }

    @Test func aSteerWithNothingRunningAndAnUnknownSessionAreRefused() async throws {
        let server = try server()
        defer { Task { await server.shutdown() } }
        let steer = io(server, data: temporaryDirectory())
        #expect(await steer.run("workspaces", "send", "sess-43", "--steer", "Faster") == 65)
        #expect(steer.stderr.contains("Nothing is running in this chat to steer"))
        let unknown = io(server, data: temporaryDirectory())
        #expect(await unknown.run("workspaces", "send", "sess-999", "Hallo") == 65)
        #expect(unknown.stderr.contains("no session 'sess-999'"))
    }

    @Test(
        "usage errors name the problem",
        arguments: [
            (["workspaces", "frobnicate"], "sybil workspaces: unknown subcommand 'frobnicate'"),
            (["workspaces", "open"], "sybil workspaces open: needs one SESSION"),
            (["workspaces", "send", "sess-42"], "sybil workspaces send: needs TEXT (or --attach FILE)"),
            (["workspaces", "list", "extra"], "sybil workspaces list: takes no arguments, got 'extra'"),
            (
                ["workspaces", "list", "--api-url", "http://127.0.0.1:1", "--in-memory"],
                "sybil workspaces list: --in-memory is for the embedded server, not --api-url"
            ),
        ])
    func usageErrors(arguments: [String], message: String) async {
        let test = TestIO()
        #expect(await test.run(arguments) == 64)
        #expect(test.stderr.hasPrefix(message))
    }
}
