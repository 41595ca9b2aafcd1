import Foundation
import SybilCore
import SybilHTTP
import SybilTesting
import SybilWire
import Testing

@testable import SybilServer

/// The route table is the single source of what the server serves: every route declared once
/// is reachable at its path and under `/api`, unknown paths and wrong methods are answered
/// from the head (404, 405 with `Allow`), the token is refused from the head on every route
/// the table says needs it, each route's body limit is its own and enforced from the head, and
/// a path parameter that does not decode is a 400 naming it.
@Suite("Reference server: the route table", .timeLimit(.minutes(2)))
struct RouteTableTests {
    private static let table = RouteTable.sybil
    private static let apiRoutes = table.routes.filter { $0.name != .debugWebSocketEcho }.map(\.name)

    /// A value for each parameter a template has.
    private static let parameterValues = ["uploadId": "u-1", "streamId": "chatcmpl-1", "modelId": "chat-latest"]

    private static func concretePath(_ name: ServerRoute) -> String {
        parameterValues.reduce(name.template) { $0.replacingOccurrences(of: "{\($1.key)}", with: $1.value) }
    }

    private static func head(
        _ method: String, _ target: String, _ headers: [(String, String)] = [],
        authorization: String? = "Bearer \(AppHarness.token)"
    ) -> HTTPRequestHead {
        var fields = headers
        if let authorization { fields.append(("Authorization", authorization)) }
        return HTTPRequestHead(method: method, target: target, minorVersion: 1, headers: HTTPHeaders(fields))
    }

    private static func error(_ response: HTTPServerResponse) throws -> APIErrorBody {
        try APIErrorBody.decode(json(response), at: .root)
    }

    @Test func everyRouteIsDeclaredOnceAndEveryNameHasOne() {
        #expect(Self.table.routes.count == ServerRoute.allCases.count)
        #expect(Set(Self.table.routes.map(\.name)) == Set(ServerRoute.allCases))
        #expect(Set(Self.table.routes.map { "\($0.method) \($0.template)" }).count == Self.table.routes.count)
    }

    @Test("a route declared once is reachable at its path and under /api", arguments: apiRoutes)
    func reachableAtEachPath(name: ServerRoute) async throws {
        let harness = try AppHarness()
        for path in [Self.concretePath(name), "/api" + Self.concretePath(name)] {
            guard case .route(let route, _) = Self.table.match(method: name.method, path: path) else {
                Issue.record("\(name) does not match \(path)")
                continue
            }
            #expect(route.name == name)
            // Not answered from the head for a client with the token: the route's handler answers.
            #expect(harness.app.headResponse(for: Self.head(name.method, path)) == nil, "\(path)")
            let response = await harness.send(name.method, path)
            #expect(response.status != 405, "\(path)")
            if response.status == 404 {
                #expect(try !Self.error(response).message.hasPrefix("No route"), "\(path)")
            }
        }
    }

    @Test func anUnknownPathIs404AndAWrongMethod405WithAllowFromTheHead() throws {
        let harness = try AppHarness()
        for target in ["/v1/nothing", "/api/v1/nothing", "/agent/uploads/u-1", "/api", "/apix/healthz"] {
            let answer = try #require(harness.app.headResponse(for: Self.head("POST", target)), "\(target)")
            #expect(answer.status == 404, "\(target)")
            #expect(try Self.error(answer).code == "not_found")
            #expect(answer.headers["Allow"] == nil)
        }
        // Every path of the table, asked with a method none of its routes has: 405 naming them.
        let methodsByTemplate = Dictionary(grouping: Self.table.routes, by: \.template).mapValues { $0.map(\.method) }
        for (template, methods) in methodsByTemplate where template != "/debug/ws-echo" {
            let path = Self.parameterValues.reduce(template) {
                $0.replacingOccurrences(of: "{\($1.key)}", with: $1.value)
            }
            for prefix in ["", "/api"] {
                let answer = try #require(harness.app.headResponse(for: Self.head("DELETE", prefix + path)))
                #expect(answer.status == 405, "\(prefix + path)")
                #expect(answer.headers["Allow"] == methods.joined(separator: ", "), "\(prefix + path)")
                #expect(try Self.error(answer).code == "method_not_allowed")
            }
        }
    }

    @Test func aWrongMethodIsAnsweredWithoutReadingTheBodyOverASocket() async throws {
        let server = try Self.startReference()
        let client = try RawClient(port: server.http.port)
        client.send(
            "DELETE /agent/messages HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer live\r\nContent-Length: 1000\r\n"
                + "Expect: 100-continue\r\n\r\n")
        let response = await blocking { client.readResponse() }
        #expect(response?.status == 405, "the final answer, not 100 Continue")
        #expect(response?.headers["allow"] == "GET, POST")
        await server.shutdown()
    }

    @Test("the token is refused from the head on every route that needs it", arguments: apiRoutes)
    func authorizationFromTheHead(name: ServerRoute) throws {
        let harness = try AppHarness()
        let route = try #require(Self.table[name])
        for path in [Self.concretePath(name), "/api" + Self.concretePath(name)] {
            let missing = harness.app.headResponse(for: Self.head(name.method, path, authorization: nil))
            let wrong = harness.app.headResponse(for: Self.head(name.method, path, authorization: "Bearer no"))
            let twice = harness.app.headResponse(
                for: Self.head(
                    name.method, path, [("Authorization", "Bearer \(AppHarness.token)")],
                    authorization: "Bearer \(AppHarness.token)"))
            switch route.access {
            case .bearerToken:
                for answer in [missing, wrong] {
                    #expect(answer?.status == 401, "\(path)")
                    #expect(answer?.headers["WWW-Authenticate"] == "Bearer")
                }
                #expect(twice?.status == 400, "\(path)")
                #expect(try twice.map(Self.error)?.code == "duplicate_authorization")
                // A refused request is offered no body consumer: its body is never parsed.
                #expect(harness.app.bodyConsumer(for: Self.head(name.method, path, authorization: nil)) == nil)
            case .open:
                #expect(name == .health, "only health is open under /api")
                #expect(missing == nil && wrong == nil)
            }
        }
    }

    @Test func onlyHealthAndTheDebugEchoAreOpen() {
        let open = Self.table.routes.filter { $0.access == .open }.map(\.name)
        #expect(Set(open) == [.health, .debugWebSocketEcho])
    }

    @Test func eachRoutesBodyLimitIsItsOwnAndTheSameUnderApi() throws {
        let harness = try AppHarness()
        for route in Self.table.routes {
            let path = Self.concretePath(route.name)
            for target in [path, "/api" + path] {
                let head = Self.head(route.method, target, [("Content-Type", "text/plain")])
                #expect(harness.app.bodyLimit(for: head) == route.bodyLimit.limit(for: head), "\(target)")
            }
        }
        let limits = Dictionary(uniqueKeysWithValues: Self.table.routes.map { ($0.name, $0.bodyLimit) })
        let plain = Self.head("POST", "/agent/uploads", [("Content-Type", "text/plain")])
        let multipart = Self.head("POST", "/agent/uploads", [("Content-Type", "multipart/form-data; boundary=b")])
        #expect(limits[.agentUpload]?.limit(for: plain) == 8 << 20)
        #expect(limits[.agentUpload]?.limit(for: multipart) == (8 << 20) + (64 << 10))
        #expect(limits[.workspacesRPC]?.limit(for: plain) == 2 << 20)
        #expect(limits[.recordsBatch]?.limit(for: plain) == RecordBatch.maxBodyBytes)
        #expect(limits[.webSearch]?.limit(for: plain) == 1 << 20)
    }

    /// Over a real socket, for every route that takes a body: a declared length one byte over
    /// its limit is a 413 from the head (no `100 Continue`), at the limit the body is wanted.
    @Test(arguments: table.routes.filter { $0.method == "POST" }.map(\.name))
    func bodyLimitIsEnforcedFromTheHead(name: ServerRoute) async throws {
        let server = try Self.startReference()
        let route = try #require(Self.table[name])
        for contentType in ["application/json", "multipart/form-data; boundary=b"] {
            let limit = route.bodyLimit.limit(
                for: Self.head("POST", name.template, [("Content-Type", contentType)]))
            for (length, expected) in [(limit + 1, 413), (limit, 100)] {
                let client = try RawClient(port: server.http.port)
                client.send(
                    "POST \(name.template) HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer live\r\n"
                        + "Content-Type: \(contentType)\r\nContent-Length: \(length)\r\nExpect: 100-continue\r\n\r\n")
                let response = await blocking { client.readResponse() }
                #expect(response?.status == expected, "\(name) \(contentType) \(length)")
                client.disconnect()
            }
        }
        await server.shutdown()
    }

    @Test func aPathParameterThatDoesNotDecodeIsA400NamingIt() async throws {
        let harness = try AppHarness()
        let longStream = String(repeating: "s", count: ChatStreamID.maximumBytes + 1)
        let longUpload = String(repeating: "u", count: UploadID.maximumBytes + 1)
        for (target, param) in [
            ("/v1/chat/completions/a%2Fb/events", "streamId"),
            ("/v1/chat/completions/\(longStream)/events", "streamId"),
            ("/v1/chat/completions/a%zzb/events", "streamId"),
            ("/v1/chat/completions/%FF/events", "streamId"),
            ("/v1/chat/completions/a%00b/events", "streamId"),
            ("/agent/uploads/a%2Fb/original", "uploadId"),
            ("/agent/uploads/a%2/original", "uploadId"),
            ("/agent/uploads/\(longUpload)/original", "uploadId"),
            ("/api/agent/uploads/%zz/original", "uploadId"),
            // OpenAI names the model's parameter `model`, as this route's 404 does.
            ("/v1/models/a%2Fb", "model"),
            ("/v1/models/\(String(repeating: "m", count: ModelID.maximumBytes + 1))", "model"),
        ] {
            let response = await harness.send("GET", target)
            #expect(response.status == 400, "\(target)")
            let error = try Self.error(response)
            #expect(error.param == param, "\(target)")
            #expect(error.code == "invalid_parameter", "\(target)")
        }
        // At their limits, ids that decode reach the route: not kept here is a 404.
        let stream = String(repeating: "s", count: ChatStreamID.maximumBytes)
        let missing = await harness.send("GET", "/v1/chat/completions/\(stream)/events")
        #expect(try Self.error(missing).code == "stream_not_found")
        #expect(await harness.send("GET", "/agent/uploads/\(longUpload.dropLast())/original").status == 404)
    }

    @Test func pathParametersAreTypedAndKeepTheSegmentAsSent() throws {
        let parameters = PathParameters(["uploadId": "sp+x%41"])
        #expect(try parameters.value(UploadID.self).rawValue == "sp+xA")
        #expect(throws: APIError.invalid("uploadId \(UploadNames.uploadIdRule).", param: "uploadId")) {
            try PathParameters(["uploadId": "a%20b"]).value(UploadID.self)
        }
        guard case .route(_, let matched) = RouteTable.sybil.match(method: "GET", path: "/agent/uploads/a%2Fb/original")
        else {
            Issue.record("an encoded slash is still one segment")
            return
        }
        #expect(matched.raw == ["uploadId": "a%2Fb"])
    }

    /// The docs walk the same table: every API route is named, with its method, on a page
    /// of docs/api (root-relative `/v1/…` or base-relative `agent/…`, any parameter name).
    @Test func everyRouteIsNamedInTheDocs() throws {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("docs/api")
        let pages = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".md") }
        let text = try pages.map { try String(contentsOf: folder.appendingPathComponent($0), encoding: .utf8) }
            .joined(separator: "\n").replacingOccurrences(of: #"\{[^}]*\}"#, with: "{}", options: .regularExpression)
        for route in Self.table.routes where route.name != .debugWebSocketEcho {
            let path = route.template.replacingOccurrences(of: #"\{[^}]*\}"#, with: "{}", options: .regularExpression)
            let named = text.contains("\(route.method) \(path)") || text.contains("\(route.method) \(path.dropFirst())")
            #expect(named, "\(route.method) \(route.template) is not named in docs/api")
        }
    }

    private static func startReference() throws -> ReferenceServer {
        var options = SybilServerOptions(token: "live")
        options.pace = .zero
        return try ReferenceServer(options: options, time: ServerTime(clock: ManualClock()) { AppHarness.epochBase })
    }
}
