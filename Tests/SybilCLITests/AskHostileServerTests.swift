#if canImport(Glibc) && canImport(COpenSSL)
    import Foundation
    import SybilCore
    import SybilTesting
    import Testing

    /// `sybil ask` against servers that try to make it hold everything or send the question
    /// elsewhere: it refuses with one clear sentence and exit 76, and nothing follows.
    @Suite("sybil ask against a hostile server", .timeLimit(.minutes(2)))
    struct AskHostileServerTests {
        @Test func anEndlessLineIsRefusedWith76() async throws {
            let flood = LoopbackHTTPServer.Flood()
            let server = try LoopbackHTTPServer { _, connection in
                connection.write("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\ndata: ")
                let block = [UInt8](repeating: UInt8(ascii: "x"), count: 64 << 10)
                connection.flood(block, limit: 64 << 20, into: flood)
            }
            let test = TestIO(environment: ["SYBIL_TOKEN": "t"])
            let status = await test.run("ask", "--no-save", "--api-url", "http://127.0.0.1:\(server.port)", "Hallo")
            #expect(status == 76)
            #expect(test.stderr.contains("an event of the event stream is larger than 16777216 bytes"))
            #expect(await ConditionWait.until { flood.sentEverything != nil })
            #expect(flood.sentEverything == false, "sybil read all 64 MiB")
        }

        @Test func aRedirectToAnotherOriginIsRefusedAndTheQuestionGoesNowhere() async throws {
            let other = try LoopbackHTTPServer { _, connection in
                connection.write("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\ndata: [DONE]\n\n")
            }
            let target = "http://127.0.0.1:\(other.port)/v1/chat/completions"
            let server = try LoopbackHTTPServer { _, connection in
                connection.write("HTTP/1.1 307 Temporary Redirect\r\nLocation: \(target)\r\nContent-Length: 0\r\n\r\n")
            }
            let test = TestIO(environment: ["SYBIL_TOKEN": "t"])
            let status = await test.run(
                "ask", "--no-save", "--api-url", "http://127.0.0.1:\(server.port)", "secret question")
            #expect(status == 76)
            #expect(test.stderr.contains("redirected to \"\(target)\""))
            #expect(other.received.isEmpty, "the question was sent to the redirect's target")
            #expect(
                server.received.filter { $0.requestLine.hasPrefix("POST") }.count == 1,
                "asked once, not again: \(server.received.map(\.requestLine))")
        }
    }
#endif
