import Foundation
import SybilServer
import SybilTesting
import Testing

/// The server against the clients people point at OpenAI-compatible servers: the official
/// `openai` Python SDK and the `llm` command-line tool (scripts/test installs both with pip).
/// Skipped, saying why, when python3 or the package is missing.
@Suite("Reference server against the openai SDK and llm", .timeLimit(.minutes(2)))
struct OpenAIClientsPeerTests {
    private static let peers = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Peers")

    private func startServer() throws -> ReferenceServer {
        var options = SybilServerOptions(token: "peer-token")
        options.pace = .zero
        return try ReferenceServer(options: options)
    }

    @Test(
        "the openai SDK: models, whole and streamed replies with usage, limits and errors",
        .enabled(if: openAIPython != nil, "python3 with the openai package is needed (scripts/test installs it)"))
    func openAISDK() async throws {
        let server = try startServer()
        let python = try #require(openAIPython)
        let script = Self.peers.appendingPathComponent("openai_sdk_client.py").path
        let (status, output) = await run(python, [script, server.baseURL.absoluteString, "peer-token"])
        #expect(status == 0, "\(output)")
        #expect(output == "ok\n")
        await server.shutdown()
    }

    @Test(
        "llm, configured through extra-openai-models.yaml, streaming and with --no-stream",
        .enabled(if: llmPython != nil, "python3 with the llm package is needed (scripts/test installs it)"))
    func llmCommandLine() async throws {
        let server = try startServer()
        let python = try #require(llmPython)
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("sybil-llm-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: home) }
        let models = """
            - model_id: sybil
              model_name: chat-latest
              api_base: "\(server.baseURL.absoluteString)/v1"
              api_key_name: sybil
            """
        try models.write(to: home.appendingPathComponent("extra-openai-models.yaml"), atomically: true, encoding: .utf8)
        try #"{"sybil": "peer-token"}"#.write(
            to: home.appendingPathComponent("keys.json"), atomically: true, encoding: .utf8)
        var environment = ProcessInfo.processInfo.environment
        environment["LLM_USER_PATH"] = home.path
        environment["OPENAI_API_KEY"] = nil
        let question = "Was ist ein Kaltstart?"
        let whole = await run(python, ["-m", "llm", "-m", "sybil", "--no-stream", question], environment: environment)
        #expect(whole.status == 0, "\(whole.output)")
        let streamed = await run(python, ["-m", "llm", "-m", "sybil", question], environment: environment)
        #expect(streamed.status == 0, "\(streamed.output)")
        #expect(whole.output.contains("You asked about \u{201C}\(question)\u{201D}"))
        #expect(streamed.output == whole.output, "streamed and whole replies agree")
        // llm logged both exchanges with the token counts it read from the usage.
        let logs = await run(python, ["-m", "llm", "logs", "-n", "2", "--json"], environment: environment)
        let entries = try JSONSerialization.jsonObject(with: Data(logs.output.utf8)) as? [[String: Any]] ?? []
        #expect(entries.count == 2, "\(logs.output)")
        for entry in entries {
            #expect(entry["input_tokens"] as? Int == 5, "\(entry)")
            #expect((entry["output_tokens"] as? Int ?? 0) > 0, "\(entry)")
        }
        await server.shutdown()
    }

    /// Runs `executable` off the cooperative pool; its exit status and output (stdout and stderr).
    private func run(_ executable: String, _ arguments: [String], environment: [String: String]? = nil) async -> (
        status: Int32, output: String
    ) {
        await blocking { ChildProcess.run(executable, arguments, environment: environment) }
    }
}

/// A python3 with the `openai` package, looked up once.
let openAIPython = PythonPeer.python3(importing: "openai")
/// A python3 with the `llm` package, looked up once.
let llmPython = PythonPeer.python3(importing: "llm")
