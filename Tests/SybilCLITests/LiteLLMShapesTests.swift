#if canImport(Glibc)
    import Foundation
    import SybilCore
    import SybilTesting
    import Testing

    @testable import SybilCLI

    /// `sybil ask` and `sybil models` against the exact bytes LiteLLM's proxy (1.108) sends,
    /// so the behaviour is pinned without installing it: each loopback server answers as the
    /// proxy did in front of a `sybil serve`.
    @Suite("sybil against LiteLLM's proxy answers", .timeLimit(.minutes(2)))
    struct LiteLLMShapesTests {
        /// What LiteLLM, started with a master key and no database, answers any other key: it
        /// cannot look the key up, and says so with a 400.
        static let noDatabaseBody =
            #"{"error":{"message":"No connected db.","type":"no_db_connection","param":null,"code":"400"}}"#

        /// A server answering every request with `status` and `body` as JSON, as LiteLLM does.
        private static func server(status: String, body: String) throws -> LoopbackHTTPServer {
            try LoopbackHTTPServer { _, connection in
                connection.write(
                    "HTTP/1.1 \(status)\r\ncontent-length: \(body.utf8.count)\r\ncontent-type: application/json\r\n"
                        + "vary: Origin\r\nx-frame-options: DENY\r\nConnection: close\r\n\r\n" + body)
            }
        }

        /// A wrong key against LiteLLM without a database is a refused key (77), with LiteLLM's
        /// words and why they mean the key, not "check the server address and model" (76).
        @Test func aKeyLiteLLMCannotLookUpIsARefusedKey() async throws {
            let server = try Self.server(status: "400 Bad Request", body: Self.noDatabaseBody)
            let test = TestIO()
            let status = await test.run(
                "ask", "--no-save", "--api-url", server.url.absoluteString, "--token", "sk-wrong", "--model",
                "mock-gpt", "Hallo?")
            #expect(status == 77, "stderr: \(test.stderr)")
            #expect(test.stderr.contains("the server refused the key: No connected db."), "\(test.stderr)")
            #expect(test.stderr.contains("takes only its master key"), "\(test.stderr)")
            #expect(!test.stderr.contains("Check the server address and model"), "\(test.stderr)")
        }

        /// `sybil models` with that key: the same refusal, exit 77.
        @Test func modelsWithAKeyLiteLLMCannotLookUpIsARefusedKey() async throws {
            let server = try Self.server(status: "400 Bad Request", body: Self.noDatabaseBody)
            let test = TestIO()
            #expect(
                await test.run("models", "--api-url", server.url.absoluteString, "--token", "sk-wrong") == 77,
                "stderr: \(test.stderr)")
            #expect(
                test.stderr.hasPrefix("sybil models: the server refused the key (400): No connected db."),
                "\(test.stderr)")
            #expect(test.stderr.contains("takes only its master key"), "\(test.stderr)")
        }
        /// LiteLLM writes an upstream's failure in two paragraphs ("…\n\nLiteLLM: model group
        /// … failed with the error above."): standard error still says it on one line, with
        /// the advice after the whole message, not stranded after a blank line.
        @Test func aMessageInParagraphsIsSaidOnOneLine() async throws {
            let body =
                #"{"error":{"message":"litellm.InternalServerError: InternalServerError: OpenAIException - Connection error.\n\nLiteLLM: model group 'sybil-down' failed with the error above. No fallback was attempted.","type":"internal_server_error","param":null,"code":"500"}}"#
            let server = try Self.server(status: "500 Internal Server Error", body: body)
            let test = TestIO()
            let status = await test.run(
                "ask", "--no-save", "--api-url", server.url.absoluteString, "--model", "sybil-down", "Hallo?")
            #expect(status == 69, "stderr: \(test.stderr)")
            #expect(
                test.stderr
                    == "sybil ask: The chat service failed (500): litellm.InternalServerError: InternalServerError:"
                    + " OpenAIException - Connection error. LiteLLM: model group 'sybil-down' failed with the error"
                    + " above. No fallback was attempted. Retry in a moment.\n")
        }

        /// The upstream's refused key, relayed by LiteLLM as a 401 in two paragraphs: one line too.
        @Test func aRefusedKeyInParagraphsIsSaidOnOneLine() async throws {
            let body =
                #"{"error":{"message":"litellm.AuthenticationError: AuthenticationError: OpenAIException - A valid bearer token is required (Authorization: Bearer <token>).\n\nLiteLLM: model group 'sybil-badkey' failed with the error above. No fallback was attempted.","type":"authentication_error","param":null,"code":"401"}}"#
            let server = try Self.server(status: "401 Unauthorized", body: body)
            let test = TestIO()
            let status = await test.run(
                "ask", "--no-save", "--api-url", server.url.absoluteString, "--model", "sybil-badkey", "Hallo?")
            #expect(status == 77, "stderr: \(test.stderr)")
            #expect(
                test.stderr
                    == "sybil ask: the server refused the key: litellm.AuthenticationError: AuthenticationError:"
                    + " OpenAIException - A valid bearer token is required (Authorization: Bearer <token>)."
                    + " LiteLLM: model group 'sybil-badkey' failed with the error above. No fallback was attempted.\n")
        }
        /// LiteLLM behind a path (a gateway's `/gw`), added as a profile with a key it cannot
        /// look up: both probes get its 400, which shows the routes are there as a 401 would.
        /// The profile is saved, and the answer says the key was refused in LiteLLM's words,
        /// instead of "neither lists models; check the base URL" (69, nothing saved).
        @Test func profileAddBehindAPathWithAKeyLiteLLMCannotLookUpFindsTheRoutes() async throws {
            let server = try Self.server(status: "400 Bad Request", body: Self.noDatabaseBody)
            let home = FileManager.default.temporaryDirectory.appendingPathComponent("sybil-litellm-\(UUID())").path
            defer { try? FileManager.default.removeItem(atPath: home) }
            let add = TestIO(environment: [
                "XDG_CONFIG_HOME": home + "/config", "XDG_DATA_HOME": home + "/data", "WRONG_KEY": "sk-wrong",
            ])
            let status = await add.run(
                "profile", "add", "gw", "--base-url", server.url.absoluteString + "/gw", "--model", "mock-gpt",
                "--key-env", "WRONG_KEY")
            #expect(status == 0, "stderr: \(add.stderr)")
            #expect(add.stderr.contains("(api_prefix = \"/v1\")"), "\(add.stderr)")
            #expect(
                add.stderr.contains("HTTP 400, the key was refused: No connected db. (the proxy has no database"),
                "\(add.stderr)")
            let saved = try String(contentsOfFile: home + "/config/sybil/config.toml", encoding: .utf8)
            #expect(saved.contains(#"api_prefix = "/v1""#), "\(saved)")
        }
    }
#endif
