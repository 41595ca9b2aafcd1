import Foundation
import SybilCore
import SybilTesting
import Testing

@testable import SybilCLI

/// `sybil models` against a loopback server answering `GET /v1/models` with a fixed list.
@Suite("sybil models", .timeLimit(.minutes(2)))
struct ModelsCommandTests {
    /// A server answering every request with `body` as JSON.
    private static func server(listing body: String) throws -> LoopbackHTTPServer {
        try LoopbackHTTPServer { request, connection in
            guard request.requestLine.hasPrefix("GET /v1/models ") else {
                connection.write("HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
                return
            }
            connection.write(
                "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n"
                    + "Connection: close\r\n\r\n" + body)
        }
    }

    /// A fresh Ollama (nothing pulled) or a LiteLLM proxy without a model list answers an
    /// empty list: standard error says so and how to name a model, and the exit status is 0,
    /// as `sybil search` with no matches.
    @Test func anEmptyListIsSaidOnStandardErrorWithHowToNameAModel() async throws {
        let server = try Self.server(listing: #"{"object":"list","data":[]}"#)
        let test = TestIO()
        #expect(await test.run("models", "--api-url", server.url.absoluteString) == 0, "\(test.stderr)")
        #expect(test.stdout == "")
        #expect(test.stderr.hasPrefix("sybil models: \(server.url.absoluteString) (--api-url) lists no models"))
        #expect(test.stderr.contains("--model NAME"), "\(test.stderr)")
        #expect(test.stderr.contains("sybil profile add PROFILE --model NAME"), "\(test.stderr)")
        #expect(test.stderr.hasSuffix("\n") && test.stderr.split(separator: "\n").count == 1)
    }

    /// With `--json` the empty list is still one valid JSON object, and standard error says
    /// the same.
    @Test func anEmptyListWithJSONPrintsAnEmptyModelsArray() async throws {
        let server = try Self.server(listing: #"{"object":"list","data":[]}"#)
        let test = TestIO()
        #expect(await test.run("models", "--api-url", server.url.absoluteString, "--json") == 0, "\(test.stderr)")
        #expect(test.stdout == "{\"models\":[]}\n")
        let parsed = try JSONObjectReader(try JSONReader().parse(Array(test.stdout.utf8)), at: .root)
        #expect(try parsed.array("models").isEmpty)
        #expect(test.stderr.contains("lists no models"), "\(test.stderr)")
    }

    /// A list with models prints their ids and nothing on standard error.
    @Test func aListPrintsOneIdALineAndNoNotice() async throws {
        let server = try Self.server(
            listing: #"{"object":"list","data":[{"id":"llama3.2","object":"model"},{"id":"qwen3","object":"model"}]}"#)
        let test = TestIO()
        #expect(await test.run("models", "--api-url", server.url.absoluteString) == 0, "\(test.stderr)")
        #expect(test.stdout == "llama3.2\nqwen3\n")
        #expect(test.stderr == "")
    }
}
