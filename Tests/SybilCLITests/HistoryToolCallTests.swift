import Foundation
import SybilCore
import SybilTesting
import Testing

@testable import SybilCLI

/// The tool calls a model made in an ordinary chat are saved with its reply: `sybil history
/// show` prints a line per call made safe for the terminal, `--json` and `history export` list
/// them, and `sybil ask -c` does not send them back (the OpenAI format would need a tool result
/// for each, and Sybil never runs a tool).
@Suite("sybil history: a reply's tool calls", .timeLimit(.minutes(2)))
struct HistoryToolCallTests {
    let home = FileManager.default.temporaryDirectory.appendingPathComponent(
        "sybil-cli-history-tools-\(UUID().uuidString)"
    )
    .path
    var environment: [String: String] { ["XDG_DATA_HOME": home, "HOME": "/nonexistent", "SYBIL_TOKEN": "t"] }

    /// Asks through the peer of ``AskToolCallTests`` and returns the saved conversation's id.
    func askOnce(_ peer: LoopbackHTTPServer) async throws -> String {
        let test = TestIO(environment: environment)
        #expect(
            await test.run("ask", "--api-url", peer.url.absoluteString, "--model", "m", "weather?") == 0,
            "\(test.stderr)")
        let line = try #require(test.stderr.split(separator: "\n").first { $0.hasPrefix("sybil ask: conversation ") })
        return String(line.dropFirst("sybil ask: conversation ".count))
    }

    @Test func historyShowPrintsEachCallMadeSafe() async throws {
        defer { try? FileManager.default.removeItem(atPath: home) }
        let peer = try AskToolCallTests.peer()
        let id = try await askOnce(peer)
        let show = TestIO(environment: environment)
        #expect(await show.run("history", "show", id) == 0, "\(show.stderr)")
        #expect(
            show.stdout.contains(
                "Let me check.\n" + #"[tool call, not run: get_weather({"city":"Paris"})]"# + "\n"
                    + "[tool call, not run: rm\u{FFFD}[2J({})]\n"),
            "\(show.stdout)")
        #expect(!show.stdout.contains("\u{1B}"), "a name reaches the terminal sanitized")
    }

    @Test func jsonAndExportListTheCalls() async throws {
        defer { try? FileManager.default.removeItem(atPath: home) }
        let peer = try AskToolCallTests.peer()
        let id = try await askOnce(peer)
        let show = TestIO(environment: environment)
        #expect(await show.run("history", "show", id, "--json") == 0, "\(show.stderr)")
        let document = try JSONReader().parse(Array(show.stdout.utf8))
        guard case .object(let conversation) = document, case .array(let messages)? = conversation["messages"],
            case .object(let reply)? = messages.last, case .array(let calls)? = reply["toolCalls"],
            case .object(let first)? = calls.first
        else {
            Issue.record("no toolCalls in \(show.stdout)")
            return
        }
        #expect(calls.count == 2)
        #expect(first["id"] == .string("call_1"))
        #expect(first["name"] == .string("get_weather"))
        #expect(first["arguments"] == .string(#"{"city":"Paris"}"#))
        #expect(first["truncated"] == .bool(false))
        if case .object(let question)? = messages.first { #expect(question["toolCalls"] == .array([])) }

        let export = TestIO(environment: environment)
        #expect(await export.run("history", "export") == 0, "\(export.stderr)")
        #expect(export.stdout.contains(#"- [tool call, not run: get_weather({"city":"Paris"})]"#), "\(export.stdout)")
    }

    @Test func aContinuationSendsTheReplysTextButNotItsCalls() async throws {
        defer { try? FileManager.default.removeItem(atPath: home) }
        let peer = try AskToolCallTests.peer()
        _ = try await askOnce(peer)
        let again = TestIO(environment: environment)
        #expect(
            await again.run("ask", "--api-url", peer.url.absoluteString, "-c", "and tomorrow?") == 0, "\(again.stderr)")
        let posts = peer.received.filter { $0.requestLine.hasPrefix("POST") }
        #expect(posts.count == 2)
        let body = String(decoding: try #require(posts.last).body, as: UTF8.self)
        #expect(body.contains("Let me check."), "the reply's text is sent back")
        #expect(!body.contains("tool_calls"), "its calls are not: they would need tool results")
        #expect(!body.contains("get_weather"))
    }
}
