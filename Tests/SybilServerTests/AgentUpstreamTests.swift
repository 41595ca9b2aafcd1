#if canImport(Glibc) && canImport(COpenSSL)
    import Foundation
    import SybilCore
    import SybilTesting
    import SybilWire
    import Testing

    @testable import SybilServer

    /// `sybil serve --upstream URL --upstream-model M`: a real model answers the Agent room,
    /// with the room's recent visible history as context; a failing upstream is said in the
    /// room, never left as a pending turn.
    @Suite("The Agent room answered by an upstream model", .timeLimit(.minutes(2)))
    struct AgentUpstreamTests {
        private static func upstream(status: Int = 200, answer: String) throws -> LoopbackHTTPServer {
            try LoopbackHTTPServer { _, connection in
                let body =
                    status == 200
                    ? #"{"id":"x","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"\#(answer)"},"finish_reason":"stop"}]}"#
                    : #"{"error":{"message":"\#(answer)","type":"invalid_request_error"}}"#
                connection.write(
                    "HTTP/1.1 \(status) X\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)"
                )
            }
        }

        private func harness(_ upstream: LoopbackHTTPServer) throws -> AppHarness {
            try AppHarness { options in
                options.upstream = URL(string: "http://127.0.0.1:\(upstream.port)")
                options.upstreamModel = "llama3.2"
                options.upstreamKey = "up-key"
            }
        }

        @Test func theModelAnswersWithTheRoomsHistoryAsContext() async throws {
            let upstream = try Self.upstream(answer: "Zwei Fehler im Build.")
            let harness = try harness(upstream)
            #expect((await harness.submit("r-1", text: "Was ist kaputt?")).status == 202)
            await harness.waitUntilAgentIdle()
            #expect((await harness.submit("r-2", text: "Und warum?")).status == 202)
            await harness.waitUntilAgentIdle()
            let visible = try await harness.history().messages.filter(\.isVisible)
            #expect(
                visible.map(\.text) == [
                    "Was ist kaputt?", "Zwei Fehler im Build.", "Und warum?", "Zwei Fehler im Build.",
                ])
            let second = try #require(upstream.received.last)
            #expect(second.requestLine == "POST /v1/chat/completions HTTP/1.1")
            #expect(second.header("Authorization") == "Bearer up-key")
            let body = try JSONReader().parse(second.body)
            guard case .object(let object) = body, case .array(let messages)? = object["messages"] else {
                Issue.record("no messages in \(body)")
                return
            }
            #expect(object["model"] == .string("llama3.2"))
            #expect(object["stream"] == .bool(false))
            let contents: [String] = messages.compactMap {
                if case .object(let message) = $0, case .string(let text)? = message["content"] { text } else { nil }
            }
            #expect(contents.dropFirst() == ["Was ist kaputt?", "Zwei Fehler im Build.", "Und warum?"])
            await harness.shutdown()
        }

        @Test func aRefusingUpstreamIsSaidInTheRoom() async throws {
            let upstream = try Self.upstream(status: 401, answer: "Incorrect API key provided.")
            let harness = try harness(upstream)
            #expect((await harness.submit("r-1", text: "Hallo?")).status == 202)
            await harness.waitUntilAgentIdle()
            let reply = try #require(try await harness.history().messages.last)
            #expect(reply.role == .assistant)
            #expect(reply.text == "The upstream model could not answer (HTTP 401): Incorrect API key provided.")
            #expect(try await harness.app.agentRoom.store.pendingTurnCount() == 0)
            await harness.shutdown()
        }
    }
#endif
