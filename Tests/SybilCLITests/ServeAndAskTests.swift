import Foundation
import SybilCore
import SybilHTTP
import SybilNet
import Testing

@testable import SybilCLI
@testable import SybilServer

@Suite("sybil ask and sybil serve", .timeLimit(.minutes(2)))
struct ServeAndAskTests {
    @Test func askWithoutConfigurationStreamsFromTheEmbeddedServer() async throws {
        let test = TestIO()
        let status = await test.run("ask", "--no-save", "Was", "ist", "ein", "Kaltstart?")
        #expect(status == 0)
        #expect(test.stdout == ScriptedAgent(seed: 1).reply(to: "Was ist ein Kaltstart?").text + "\n")
        #expect(test.stderr.hasPrefix("sybil ask: using the embedded server at http://127.0.0.1:"))
    }

    @Test func askTalksToAGivenServerWithTheTokenFromTheEnvironment() async throws {
        var options = SybilServerOptions(token: "env-token")
        options.pace = .zero
        options.seed = 9
        let server = try ReferenceServer(options: options)
        let test = TestIO(environment: ["SYBIL_API_URL": server.baseURL.absoluteString, "SYBIL_TOKEN": "env-token"])
        #expect(await test.run("ask", "--no-save", "--system", "Answer briefly.", "Hallo") == 0)
        #expect(test.stdout == ScriptedAgent(seed: 9).reply(to: "Hallo").text + "\n")
        #expect(
            test.stderr
                == "sybil ask: asking sybil-scripted, the server's first model (choose with --model or a profile's model)\n"
        )
        let refused = TestIO(environment: ["SYBIL_TOKEN": "wrong"])
        #expect(await refused.run("ask", "--no-save", "--api-url", server.baseURL.absoluteString, "Hallo") == 77)
        #expect(refused.stderr.contains("the server refused the key: A valid bearer token is required"))
        let failing = TestIO(environment: ["SYBIL_TOKEN": "env-token"])
        #expect(
            await failing.run("ask", "--no-save", "--api-url", server.baseURL.absoluteString, "break [[error]]") == 76)
        #expect(failing.stderr.contains("The reply stopped with an error"))
        await server.shutdown()
    }

    @Test func askReportsAnUnreachableServerWith69() async throws {
        // Port 1 on loopback: nothing listens there (a port a stopped test server freed could
        // be taken by another test's server before this request).
        let url = "http://127.0.0.1:1"
        let test = TestIO(environment: ["SYBIL_TOKEN": "t"])
        #expect(await test.run("ask", "--no-save", "--api-url", url, "Hallo") == 69)
        #expect(test.stdout == "")
    }

    @Test(
        "usage errors name the problem",
        arguments: [
            (["ask"], "sybil ask: needs a question"),
            (["ask", "--api-url", "ftp://x", "q"], "sybil ask: --api-url needs an http: or https: URL, got 'ftp://x'"),
            (["serve", "--port", "65536"], "sybil serve: --port needs a whole number from 0 to 65535, got '65536'"),
            (
                ["serve", "--in-memory", "--data-dir", "/tmp/x"],
                "sybil serve: --in-memory and --data-dir exclude each other"
            ),
            (["serve", "extra"], "sybil serve: takes no arguments, got 'extra'"),
            (["serve", "--token", "has space"], "sybil serve: the token must be visible ASCII without spaces"),
        ])
    func usageErrors(arguments: [String], message: String) async {
        let test = TestIO()
        #expect(await test.run(arguments) == 64)
        #expect(test.stderr.hasPrefix(message))
    }

    @Test func serveListensPrintsItsAddressAndStopsWhenAsked() async throws {
        let test = TestIO(environment: ["SYBIL_TOKEN": "from-env"])
        let running = Task { await test.run("serve", "--port", "0", "--in-memory", "--pace", "0") }
        // Each line is written whole, and the token line follows the address.
        await test.waitForOutput(containing: "sybil serve: token from SYBIL_TOKEN\n")
        let line = try #require(test.stdout.split(separator: "\n").first)
        #expect(line.hasPrefix("sybil serve: listening on "))
        let base = try #require(URL(string: String(line.dropFirst("sybil serve: listening on ".count))))
        #expect(test.stdout.contains("sybil serve: token from SYBIL_TOKEN\n"))
        #expect(!test.stderr.contains("warning"))  // loopback by default
        #expect(!test.stdout.contains("from-env"))
        let health = try await DefaultHTTPClient.make().send(
            HTTPRequest(method: "GET", url: APIEndpoint.url(base: base, path: "healthz"), timeout: .seconds(5)))
        #expect(health.head.status == 200)
        test.terminate()
        #expect(await running.value == 0)
        #expect(test.stderr.contains("stopping"))
    }

    @Test func aTokenNobodyGaveIsDrawnFromTheCommandsInjectedRandomSource() throws {
        let expected = ServeCommand.randomToken(from: SeededRandomSource(seed: 5))
        #expect(expected.count == 32 && expected.allSatisfy(\.isHexDigit))
        let request = try #require(try ServeCommand.parse([], environment: [:], random: SeededRandomSource(seed: 5)))
        #expect(request.options.token == expected)
        let other = try #require(try ServeCommand.parse([], environment: [:], random: SeededRandomSource(seed: 6)))
        #expect(other.options.token != expected)
        let given = try #require(
            try ServeCommand.parse(["--token", "t"], environment: [:], random: SeededRandomSource(seed: 5)))
        #expect(given.options.token == "t")
    }

    @Test func theFixturePlays127PortAnd8799WithFixtureTokenOverTheEnvironment() throws {
        let request = try #require(try ServeCommand.parse(["--fixture"], environment: ["SYBIL_TOKEN": "from-env"]))
        #expect(request.configuration.host == "127.0.0.1")
        #expect(request.configuration.port == 8799)
        #expect(request.options.token == "fixture-token")
        #expect(request.tokenSource == nil, "the fixture token is printed, it is no secret")
    }

    @Test(
        "an explicit host, port or token wins over the fixture, before or after it",
        arguments: [
            (["--fixture", "--port", "0"], "127.0.0.1", 0, "fixture-token"),
            (["--port", "9000", "--fixture"], "127.0.0.1", 9000, "fixture-token"),
            (["--fixture", "--host", "::1"], "::1", 8799, "fixture-token"),
            (["--token", "mine", "--fixture"], "127.0.0.1", 8799, "mine"),
            (["--host", "0.0.0.0", "--port", "1", "--token", "t", "--fixture"], "0.0.0.0", 1, "t"),
        ])
    func explicitOptionsWinOverTheFixture(arguments: [String], host: String, port: Int, token: String) throws {
        let request = try #require(try ServeCommand.parse(arguments, environment: ["SYBIL_TOKEN": "from-env"]))
        #expect(request.configuration.host == host)
        #expect(request.configuration.port == port)
        #expect(request.options.token == token)
    }

    @Test func theFixtureServesTheAPIUnderApiWithItsToken() async throws {
        let test = TestIO()
        let running = Task { await test.run("serve", "--fixture", "--port", "0", "--in-memory") }
        await test.waitForOutput(containing: "sybil serve: token fixture-token\n")
        let lines = test.stdout.split(separator: "\n")
        let base = try #require(
            lines.first.flatMap { URL(string: String($0.dropFirst("sybil serve: listening on ".count))) })
        #expect(base.absoluteString.hasPrefix("http://127.0.0.1:"))
        #expect(lines.dropFirst().first == "sybil serve: token fixture-token")
        for apiBase in [base.appendingPathComponent("api"), base] {
            let request = HTTPRequest(
                url: APIEndpoint.url(base: apiBase, path: "agent/read"),
                headers: HTTPHeaders([("Authorization", "Bearer fixture-token")]), timeout: .seconds(30))
            #expect(try await DefaultHTTPClient.make().send(request).head.status == 200, "\(apiBase)")
        }
        test.terminate()
        #expect(await running.value == 0)
    }

    @Test func bindingBeyondLoopbackWarns() async throws {
        let test = TestIO(environment: ["SYBIL_TOKEN": "t"])
        test.terminate()  // stop as soon as it has started
        #expect(await test.run("serve", "--host", "0.0.0.0", "--port", "0", "--in-memory") == 0)
        #expect(test.stderr.hasPrefix("sybil serve: warning: 0.0.0.0 is not loopback;"))
    }

    @Test func withoutATokenServeGeneratesOnePrintsItAndRequiresIt() async throws {
        let test = TestIO()
        let running = Task { await test.run("serve", "--port", "0", "--in-memory") }
        // Each line is written whole; the generated token's line is the second.
        await test.waitForOutput(containing: "sybil serve: token ")
        let lines = test.stdout.split(separator: "\n")
        let base = try #require(
            lines.first.flatMap { URL(string: String($0.dropFirst("sybil serve: listening on ".count))) })
        let tokenLine = try #require(lines.dropFirst().first)
        #expect(tokenLine.hasPrefix("sybil serve: token "))
        let token = String(tokenLine.dropFirst("sybil serve: token ".count))
        #expect(token.count == 32 && token.allSatisfy { $0.isHexDigit })
        func status(_ authorization: String) async throws -> Int {
            let request = HTTPRequest(
                url: APIEndpoint.url(base: base, path: "agent/read"),
                headers: HTTPHeaders([("Authorization", authorization)]), timeout: .seconds(30))
            return try await DefaultHTTPClient.make().send(request).head.status
        }
        #expect(try await status("Bearer \(token)") == 200)
        #expect(try await status("Bearer \(ServeCommand.randomToken(from: SeededRandomSource(seed: 77)))") == 401)
        test.terminate()
        #expect(await running.value == 0)
    }
}
