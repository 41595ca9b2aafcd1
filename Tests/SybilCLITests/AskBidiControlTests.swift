#if canImport(Glibc)
    import Foundation
    import SybilCore
    import SybilTesting
    import Testing

    @testable import SybilCLI

    /// `sybil ask` against a server whose reply carries a right-to-left override (Trojan Source,
    /// CVE-2021-42574): on a terminal that implements bidi, `invoice<RLO>fdp.exe` reads as
    /// `invoiceexe.pdf`. A terminal is shown U+FFFD in its place, the Hebrew and Arabic around it
    /// as they are; a pipe gets the exact bytes; `--json` keeps the exact text, escaped; the
    /// saved chat keeps it too.
    @Suite("sybil ask: bidi overrides in a reply", .timeLimit(.minutes(2)))
    struct AskBidiControlTests {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("sybil-cli-bidi-\(UUID().uuidString)")
            .path

        /// The reply as the server means it, and as a terminal is shown it.
        static let reply = "Saved as invoice\u{202E}fdp.exe\u{202C}. שלום \u{200F}مرحبا\u{200E}."
        static let shown = "Saved as invoice\u{FFFD}fdp.exe\u{FFFD}. שלום \u{200F}مرحبا\u{200E}."

        /// A server streaming ``reply`` in two pieces, the override escaped as JSON allows.
        static func server() throws -> LoopbackHTTPServer {
            let events = [
                #"{"id":"c","choices":[{"index":0,"delta":{"role":"assistant","content":"Saved as invoice\u202efdp"}}]}"#,
                #"{"id":"c","choices":[{"index":0,"delta":{"content":".exe\u202c. שלום \u200fمرحبا\u200e."}}]}"#,
                #"{"id":"c","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}"#,
                "[DONE]",
            ]
            return try LoopbackHTTPServer { request, connection in
                guard request.requestLine.hasPrefix("POST /v1/chat/completions") else {
                    connection.write("HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
                    return
                }
                connection.write(
                    "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n")
                for event in events.map({ "data: \($0)\n\n" }) {
                    connection.write(String(event.utf8.count, radix: 16) + "\r\n" + event + "\r\n")
                }
                connection.write("0\r\n\r\n")
            }
        }

        var environment: [String: String] { ["XDG_DATA_HOME": home, "HOME": "/nonexistent", "NO_COLOR": "1"] }

        static let explicitBidi: [ClosedRange<UInt32>] = [0x202A...0x202E, 0x2066...0x2069]

        static func hasExplicitBidi(_ text: String) -> Bool {
            text.unicodeScalars.contains { scalar in explicitBidi.contains { $0.contains(scalar.value) } }
        }

        @Test func aTerminalIsShownTheOverrideNeverObeysItAndTheSavedChatKeepsIt() async throws {
            defer { try? FileManager.default.removeItem(atPath: home) }
            let server = try Self.server()
            let terminal = TestIO(environment: environment, terminal: (80, 24))
            let status = await terminal.run("ask", "--api-url", server.url.absoluteString, "--model", "m", "Where?")
            #expect(status == 0, "\(terminal.stderr)")
            #expect(terminal.stdout.hasSuffix(Self.shown + "\n"), "\(terminal.stdout.debugDescription)")
            #expect(!Self.hasExplicitBidi(terminal.stdout))
            let id = try #require(
                terminal.stderr.split(separator: "\n").first { $0.hasPrefix("sybil ask: conversation ") }?
                    .split(separator: " ").last)
            let shown = TestIO(environment: environment)
            #expect(await shown.run("history", "show", String(id), "--json") == 0, "\(shown.stderr)")
            let saved = try JSONReader().parse(Array(shown.stdout.utf8))
            #expect(shown.stdout.contains(#"invoice\u202efdp.exe\u202c"#), "JSON escapes what it keeps")
            #expect(!Self.hasExplicitBidi(shown.stdout))
            guard case .object(let conversation) = saved, case .array(let messages)? = conversation["messages"],
                case .object(let reply)? = messages.last, case .string(let text)? = reply["text"]
            else {
                Issue.record("no reply in \(shown.stdout)")
                return
            }
            #expect(text == Self.reply, "history keeps the exact text")
        }

        @Test func aPipeGetsTheExactBytes() async throws {
            let server = try Self.server()
            let pipe = TestIO()
            let status = await pipe.run(
                "ask", "--no-save", "--api-url", server.url.absoluteString, "--model", "m", "Where?")
            #expect(status == 0, "\(pipe.stderr)")
            #expect(pipe.stdout == Self.reply + "\n")
        }

        @Test func jsonOnATerminalEscapesTheOverrideAndKeepsTheText() async throws {
            let server = try Self.server()
            let terminal = TestIO(terminal: (80, 24))
            let status = await terminal.run(
                "ask", "--no-save", "--api-url", server.url.absoluteString, "--model", "m", "--json", "Where?")
            #expect(status == 0, "\(terminal.stderr)")
            #expect(!Self.hasExplicitBidi(terminal.stdout), "\(terminal.stdout.debugDescription)")
            #expect(terminal.stdout.contains(#"invoice\u202efdp.exe\u202c"#))
            let result = try AskResult.decode(JSONReader().parse(Array(terminal.stdout.utf8)))
            #expect(result.text == Self.reply)
        }
    }
#endif
