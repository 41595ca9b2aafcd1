import Foundation
import SybilCore
import SybilHTTP
import SybilServer
import SybilTesting
import SybilWire
import Testing

/// Every route fed extreme values in every place a client controls: each member of a valid
/// body replaced by each hostile value in turn, every query parameter and the event-id
/// headers. No answer may be a 500 (an unexpected failure), every refusal is an error body,
/// and the server still answers afterwards. The crash this guards against:
/// `GET /agent/messages?after=c-9223372036854775807` once overflowed `after + 1`.
@Suite("Hostile input sweep over every route", .timeLimit(.minutes(2)))
struct HostileInputSweepTests {
    /// Raw JSON texts put in place of one member of a valid body.
    static let hostileJSON: [String] = [
        "9223372036854775807", "-9223372036854775808", "9223372036854775808", "-9223372036854775809",
        "18446744073709551616", "1e400", "-1e400", "1e-400", "4.5", "-1", "0", "-0", "9007199254740993",
        "null", "true", "[]", "{}", #""""#, #""c-9223372036854775807""#, #""9223372036854775807""#,
        #""\u0000""#, JSONWriter.quoted(String(repeating: "x", count: 200_000)),
    ]

    /// Texts put in a query parameter or an event-id header.
    static let hostileText: [String] = [
        "9223372036854775807", "9223372036854775808", "-9223372036854775808", "99999999999999999999999",
        "c-9223372036854775807", "c-9223372036854775808", "c--1", "c-0", "0", "-1", "1e3", "", "%00", "%FF%FE",
        "1.9223372036854775807", String(repeating: "9", count: 5_000),
    ]

    static let chat = #""desktopId": "desk-1", "projectId": "proj-app", "sessionId": "sess-42""#

    /// A valid body for each route that takes one.
    static let bodies: [(route: String, body: String)] = [
        (
            "/v1/chat/completions",
            #"{"model": "chat-latest", "messages": [{"role": "user", "content": "hi"}], "max_tokens": 5, "#
                + #""temperature": 0.5, "top_p": 1, "n": 1, "stream": false, "stream_options": null}"#
        ),
        ("/agent/messages", #"{"requestId": "r-1", "text": "hi", "createdAt": 1800000000000, "attachments": []}"#),
        ("/agent/read", #"{"cursor": "c-1"}"#),
        (
            "/records/batch",
            #"{"records": [{"id": "00000000-0000-4000-8000-000000000001", "createdAt": 1800000000001, "#
                + #""kind": "mood", "score": 3, "note": null}]}"#
        ),
        (
            "/v1/workspaces/rpc",
            #"{"method": "run.codexChatLoadPageBefore", "callKey": null, "params": {\#(chat), "cursor": "c-1", "limit": 50}}"#
        ),
        ("/v1/workspaces/rpc", #"{"method": "run.codexChatLoad", "callKey": null, "params": {\#(chat)}}"#),
        (
            "/v1/workspaces/rpc",
            #"{"method": "run.codexChatSubmit", "callKey": "run.codexChatSubmit:op-1:m1", "params": {\#(chat), "#
                + #""operationId": "op-1", "mutationId": "m1", "mode": "send", "text": "Fix it."}}"#
        ),
    ]

    /// The GET routes with the query parameters they read.
    static let queries: [(path: String, fixed: String, parameters: [String])] = [
        ("/agent/messages", "", ["after", "before", "limit"]),
        ("/records", "", ["after", "limit"]),
        ("/v1/chat/completions/chatcmpl-1/events", "", ["after"]),
        ("/v1/workspaces/events", "desktopId=desk-1&projectId=proj-app&sessionId=sess-42", ["after"]),
        ("/agent/read", "", ["cursor"]),
        ("/v1/models", "", ["limit"]),
    ]

    /// Fails the test when `response` is an unexpected failure or a refusal without an error
    /// body; collects a streamed answer only until its first bytes.
    private static func check(_ response: HTTPServerResponse, _ what: String) async throws {
        #expect(response.status != 500, "\(what) → 500: \(String(decoding: response.bodyBytes ?? [], as: UTF8.self))")
        guard response.status >= 400 else {
            if case .stream = response.body { _ = await collect(response) { !$0.isEmpty } }
            return
        }
        let body = try #require(response.bodyBytes, "\(what) → \(response.status) without a body")
        let error = try APIErrorBody.decode(try JSONReader().parse(body), at: .root)
        #expect(!error.message.isEmpty, "\(what)")
        if response.status == 400 { #expect(error.param != nil, "\(what) → \(error.message)") }
    }

    /// `value` once for every node in it (members, elements and the whole), with that node
    /// replaced by `marker`.
    private static func leafVariants(of value: JSONValue, marker: JSONValue) -> [JSONValue] {
        switch value {
        case .object(let object):
            var variants: [JSONValue] = []
            for (index, member) in object.members.enumerated() {
                for variant in leafVariants(of: member.value, marker: marker) {
                    var changed = object
                    changed.members[index].value = variant
                    variants.append(.object(changed))
                }
            }
            return variants + [marker]
        case .array(let elements):
            var variants: [JSONValue] = []
            for (index, element) in elements.enumerated() {
                for variant in leafVariants(of: element, marker: marker) {
                    var changed = elements
                    changed[index] = variant
                    variants.append(.array(changed))
                }
            }
            return variants + [marker]
        default:
            return [marker]
        }
    }

    @Test func everyMemberOfEveryBodyTakesEveryHostileValueWithoutAFailure() async throws {
        let harness = try AppHarness { $0.debugDesktops = true }
        let marker = "\u{1}hostile\u{1}"
        var sent = 0
        for (route, body) in Self.bodies {
            let valid = try JSONReader().parse(Array(body.utf8))
            for variant in Self.leafVariants(of: valid, marker: .string(marker)) {
                let template = JSONWriter().string(from: variant)
                for hostile in Self.hostileJSON {
                    let text = template.replacingOccurrences(of: JSONWriter.quoted(marker), with: hostile)
                    let response = await harness.send("POST", route, json: text)
                    try await Self.check(response, "POST \(route) \(text.prefix(160))")
                    sent += 1
                }
            }
        }
        #expect(sent > 1_000)
        #expect(await harness.send("GET", "/healthz").status == 200)
    }

    @Test func everyQueryParameterAndEventIdTakesEveryHostileValueWithoutAFailure() async throws {
        let harness = try AppHarness()
        for (path, fixed, parameters) in Self.queries {
            for parameter in parameters {
                for hostile in Self.hostileText {
                    let encoded =
                        hostile.hasPrefix("%")
                        ? hostile : hostile.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? hostile
                    let query = (fixed.isEmpty ? "" : fixed + "&") + "\(parameter)=\(encoded)"
                    try await Self.check(await harness.send("GET", "\(path)?\(query)"), "GET \(path)?\(query)")
                }
            }
            for hostile in Self.hostileText where !hostile.contains("%") {
                let target = fixed.isEmpty ? path : "\(path)?\(fixed)"
                let response = await harness.send("GET", target, headers: [("Last-Event-ID", hostile)])
                try await Self.check(response, "GET \(target) Last-Event-ID: \(hostile.prefix(40))")
            }
        }
        #expect(await harness.send("GET", "/healthz").status == 200)
    }
}
