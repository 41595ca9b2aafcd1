#if canImport(Glibc)
    import Foundation
    import Glibc
    import SybilCore
    import SybilStore
    import SybilTesting
    import SybilWire
    import Testing

    @testable import SybilCLI

    /// `sybil ask --web` end to end over loopback sockets: against `sybil serve` (the answer
    /// and its numbered sources printed, saved as a web search, listed by `history list` with
    /// its kind, shown by `history show`, found by `search`), against a hostile server (its
    /// text made safe), and against a plain third-party OpenAI-compatible server (fakellm),
    /// which does not offer web searches and is said so.
    @Suite("sybil ask --web", .timeLimit(.minutes(2)))
    struct WebSearchCommandTests {
        /// A temporary home: data and configuration directories of its own.
        struct Home {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
                "sybil-web-\(UUID().uuidString)"
            ).path
            var environment: [String: String] {
                [
                    "XDG_DATA_HOME": directory + "/data", "XDG_CONFIG_HOME": directory + "/config",
                    "HOME": "/nonexistent", "SYBIL_TOKEN": "web-token",
                ]
            }

            func remove() { try? FileManager.default.removeItem(atPath: directory) }

            func run(_ arguments: String...) async -> TestIO {
                let test = TestIO(environment: environment)
                _ = await test.run(arguments)
                return test
            }
        }

        /// `sybil serve` in this process on a free loopback port; its base URL and the running command.
        private static func serve() async throws -> (TestIO, Task<Int32, Never>, String) {
            let serve = TestIO(environment: ["SYBIL_TOKEN": "web-token"])
            let running = Task { await serve.run("serve", "--port", "0", "--in-memory", "--pace", "0", "--seed", "3") }
            await serve.waitForOutput(containing: "sybil serve: token from SYBIL_TOKEN\n")
            let line = try #require(serve.stdout.split(separator: "\n").first)
            return (serve, running, String(line.dropFirst("sybil serve: listening on ".count)))
        }

        @Test func aWebSearchIsAnsweredSavedListedShownAndFound() async throws {
            let (serve, running, base) = try await Self.serve()
            let home = Home()
            defer { home.remove() }
            let ask = TestIO(environment: home.environment)
            #expect(await ask.run("ask", "--web", "--api-url", base, "Wie", "warm", "ist", "Kyoto", "im", "Mai?") == 0)
            let expected = ScriptedWebSearchExpectation(seed: 3, query: "Wie warm ist Kyoto im Mai?")
            #expect(ask.stdout.hasPrefix(expected.answerPrefix), "\(ask.stdout)")
            #expect(
                ask.stdout.contains(
                    "\n\nSources:\n1. Scripted source 1 for \u{201C}Wie warm ist Kyoto im Mai?\u{201D} (not a real page)\n   https://scripted.example/web-search/"
                ))
            #expect(ask.stdout.contains("\n3. Scripted source 3 for"))
            let idLine = try #require(
                ask.stderr.split(separator: "\n").first { $0.hasPrefix("sybil ask: web search ") })
            let id = String(idLine.dropFirst("sybil ask: web search ".count))
            #expect(id.count == 36)

            let list = await home.run("history", "list")
            #expect(list.stdout.contains("\(id)  "))
            #expect(list.stdout.contains("  [web] Wie warm ist Kyoto im Mai?  (3 sources)\n"), "\(list.stdout)")
            let listJSON = await home.run("history", "list", "--json")
            guard case .array(let entries) = try JSONReader().parse(listJSON.stdout),
                case .object(let entry)? = entries.first
            else {
                Issue.record("not an array: \(listJSON.stdout)")
                return
            }
            #expect(entry["kind"] == .string("webSearch"))
            #expect(entry["id"] == .string(id))
            #expect(entry["query"] == .string("Wie warm ist Kyoto im Mai?"))

            let show = await home.run("history", "show", id)
            #expect(show.stdout.hasPrefix("Wie warm ist Kyoto im Mai?\nweb search \(id), saved "), "\(show.stdout)")
            #expect(show.stdout.contains("3 sources\n\n" + expected.answerPrefix))
            #expect(show.stdout.contains("\nSources:\n1. Scripted source 1"))

            for word in ["Kyoto", "scripted"] {
                let found = await home.run("search", word)
                #expect(found.stdout.hasPrefix("[web] Wie warm ist Kyoto im Mai? — "), "\(word): \(found.stdout)")
                let foundJSON = await home.run("search", "--json", word)
                guard case .array(let hits) = try JSONReader().parse(foundJSON.stdout),
                    case .object(let hit)? = hits.first
                else {
                    Issue.record("no hit for \(word): \(foundJSON.stdout)")
                    continue
                }
                #expect(hit["kind"] == .string("webSearch"))
                #expect(hit["webSearchId"] == .string(id))
            }

            let json = TestIO(environment: home.environment)
            #expect(await json.run("ask", "--web", "--json", "--api-url", base, "Osaka") == 0)
            let object = try JSONObjectReader(try JSONReader().parse(json.stdout), at: .root)
            try object.requireExactKeys(["kind", "id", "query", "answer", "sources", "createdAt", "createdAtMs"])
            let documented = try JSONObjectReader(
                try CLIJSONTests.example(under: "## sybil ask --web --json"), at: .root)
            #expect(documented.object.members.map(\.key) == object.object.members.map(\.key), "docs/cli-json.md")
            #expect(try object.string("query") == "Osaka")
            #expect(try object.array("sources").count == 3)
            #expect(json.stdout.filter { $0 == "\n" }.count == 1, "one line")
            #expect((await home.run("history", "list")).stdout.split(separator: "\n").count == 2)

            serve.terminate()
            #expect(await running.value == 0)
        }

        @Test func theQueryIsCheckedBeforeAnythingIsSent() async throws {
            let home = Home()
            defer { home.remove() }
            let refusing = try RefusingPort()
            let long = String(repeating: "x", count: WebSearchRequest.maxQueryBytes + 1)
            let test = TestIO(environment: home.environment)
            #expect(await test.run("ask", "--web", "--api-url", refusing.url.absoluteString, long) == 65)
            #expect(test.stderr.contains("over the limit of 8192 bytes"))
            let usage = TestIO(environment: home.environment)
            #expect(await usage.run("ask", "--web", "--continue", "q") == 64)
            #expect(usage.stderr.hasPrefix("sybil ask: --web and --continue exclude each other"))
        }

        @Test func aHostileServersTextReachesTheTerminalSafe() async throws {
            let answer =
                #"{"answer":"Clear \u001b[2J screen","sources":[{"title":"\u001b]0;pwned\u0007Evil\u009b31m","url":"https://evil.example/x"}]}"#
            let server = try LoopbackHTTPServer { request, connection in
                // The capability probe gets a 503 (unsettled, so the command goes on).
                let (status, body) = request.requestLine.hasPrefix("POST /v1/web-search") ? (200, answer) : (503, "{}")
                connection.write(
                    "HTTP/1.1 \(status) X\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)"
                )
            }
            let home = Home()
            defer { home.remove() }
            let test = TestIO(environment: home.environment)
            #expect(await test.run("ask", "--web", "--api-url", "http://127.0.0.1:\(server.port)", "q") == 0)
            #expect(!test.stdout.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 || $0.value == 0x9B })
            #expect(test.stdout.contains("Clear"))
            #expect(test.stdout.contains("   https://evil.example/x\n"))
            let show = await home.run("history", "list")
            #expect(show.stdout.contains("[web] q  (1 source)"))
        }

        @Test func aPlainOpenAICompatibleServerDoesNotOfferWebSearches() async throws {
            guard let (server, port) = try ThirdPartyPeer.fakellm(answering: "x") else { return }
            defer { server.stop() }
            let home = Home()
            defer { home.remove() }
            let test = TestIO(environment: home.environment)
            #expect(await test.run("ask", "--web", "--api-url", "http://127.0.0.1:\(port)/v1", "Kyoto") == 69)
            #expect(test.stdout == "")
            #expect(
                test.stderr.contains("sybil ask: Web search is not offered by http://127.0.0.1:\(port)"),
                "\(test.stderr)")
            #expect(
                test.stderr.hasSuffix(
                    ", a plain OpenAI-compatible server; use a Sybil server (`sybil serve`) for it\n"))
            #expect((await home.run("history", "list")).stdout == "", "nothing was saved")
        }
    }

    /// What the scripted server's answer starts with.
    struct ScriptedWebSearchExpectation {
        var seed: UInt64
        var query: String
        var answerPrefix: String {
            "Scripted answer from the reference server (no web search was made) for \u{201C}\(query)\u{201D}."
        }
    }
#endif
