import Foundation
import SybilCore
import SybilStore
import SybilTesting
import Testing

@testable import SybilCLI

/// Tool calls a model makes in an ordinary chat, over real sockets: a scripted peer streams
/// `tool_calls` increments; `sybil ask` notes each whole call on standard error (Sybil never
/// runs one), `--json` lists them, and a reply that only calls tools is whole, not "empty".
@Suite("sybil ask: tool calls", .timeLimit(.minutes(2)))
struct AskToolCallTests {
    let home = FileManager.default.temporaryDirectory.appendingPathComponent("sybil-cli-tools-\(UUID().uuidString)")
        .path
    var environment: [String: String] { ["XDG_DATA_HOME": home, "HOME": "/nonexistent", "SYBIL_TOKEN": "t"] }

    /// A peer whose every reply streams `Let me check.` and then two tool calls in pieces.
    static func peer() throws -> LoopbackHTTPServer {
        let events = [
            #"{"id":"c","choices":[{"index":0,"delta":{"role":"assistant","content":"Let me check."}}]}"#,
            #"{"id":"c","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"get_weather","arguments":""}}]}}]}"#,
            #"{"id":"c","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"city\":"}}]}}]}"#,
            #"{"id":"c","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"\"Paris\"}"}},{"index":1,"id":"call_2","function":{"name":"rm\u001b[2J","arguments":"{}"}}]}}]}"#,
            #"{"id":"c","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}"#,
        ]
        return try LoopbackHTTPServer { request, connection in
            if request.requestLine.hasPrefix("GET /healthz") {
                connection.write("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok")
                return
            }
            connection.write("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n")
            for event in events.map({ "data: \($0)\n\n" }) + ["data: [DONE]\n\n"] {
                connection.write(String(event.utf8.count, radix: 16) + "\r\n" + event + "\r\n")
            }
            connection.write("0\r\n\r\n")
        }
    }

    @Test func eachCallIsNotedOnStandardErrorAndNeverRun() async throws {
        defer { try? FileManager.default.removeItem(atPath: home) }
        let peer = try Self.peer()
        let test = TestIO(environment: environment)
        #expect(
            await test.run("ask", "--api-url", peer.url.absoluteString, "--model", "m", "weather?") == 0,
            "\(test.stderr)")
        #expect(test.stdout == "Let me check.\n" || test.stdout == "Let me check.")
        #expect(
            test.stderr.contains(
                #"sybil ask: the model called the tool get_weather({"city":"Paris"}) (Sybil does not run tools)"#
                    + "\n"))
        #expect(
            test.stderr.contains("sybil ask: the model called the tool rm\u{FFFD}[2J({}) (Sybil does not run tools)\n"))
        #expect(!test.stderr.contains("\u{1B}"), "a name is made safe for the terminal")
        #expect(peer.received.filter { $0.requestLine.hasPrefix("POST") }.count == 1, "nothing is run or sent back")
    }

    @Test func jsonListsTheCalls() async throws {
        defer { try? FileManager.default.removeItem(atPath: home) }
        let peer = try Self.peer()
        let test = TestIO(environment: environment)
        #expect(await test.run("ask", "--api-url", peer.url.absoluteString, "--model", "m", "--json", "weather?") == 0)
        let result = try AskResult.decode(try JSONReader().parse(Array(test.stdout.utf8)))
        #expect(result.finishReason == "tool_calls")
        #expect(result.toolCalls.map(\.name) == ["get_weather", "rm\u{1B}[2J"], "JSON keeps the name as sent")
        #expect(result.toolCalls.map(\.id) == ["call_1", "call_2"])
        #expect(result.toolCalls.first?.arguments == #"{"city":"Paris"}"#)
    }
}
