import SybilCore
import SybilHTTP
import SybilWire
import Testing

@testable import SybilServer

/// A JSON body that names a member twice is refused on every route that takes one, saying
/// `duplicate key 'x'` and naming the member's path, never a generic "must be a JSON
/// object" and never by keeping one of the two values.
@Suite("Reference server: duplicate JSON keys", .timeLimit(.minutes(2)))
struct DuplicateKeyTests {
    private static func error(_ response: HTTPServerResponse) throws -> APIErrorBody {
        try APIErrorBody.decode(json(response), at: .root)
    }

    @Test(
        "every JSON route names the duplicated member",
        arguments: [
            (
                "/v1/chat/completions",
                #"{"model": "sybil-scripted", "model": "other", "messages": [{"role": "user", "content": "hi"}]}"#,
                "model", "The body has a duplicate key 'model'; each member may appear once."
            ),
            (
                "/v1/chat/completions",
                #"{"model": "sybil-scripted", "messages": [{"role": "user", "role": "system", "content": "hi"}]}"#,
                "messages[0].role", "messages[0] has a duplicate key 'role'; each member may appear once."
            ),
            (
                "/agent/messages",
                #"{"requestId": "r1", "text": "a", "text": "b", "createdAt": 1, "attachments": []}"#,
                "text", "The body has a duplicate key 'text'; each member may appear once."
            ),
            (
                "/agent/read", #"{"cursor": "c-000000001", "cursor": "c-000000002"}"#, "cursor",
                "The body has a duplicate key 'cursor'; each member may appear once."
            ),
            (
                "/records/batch", #"{"records": [], "records": []}"#, "records",
                "The body has a duplicate key 'records'; each member may appear once."
            ),
            (
                "/v1/workspaces/rpc",
                #"{"method": "desktops.list", "method": "projects.list", "callKey": null, "params": {}}"#,
                "method", "duplicate key 'method'"
            ),
            (
                "/v1/workspaces/rpc",
                #"{"method": "projects.list", "callKey": null, "params": {"desktopId": "desk-1", "desktopId": "desk-2"}}"#,
                "params.desktopId", "duplicate key 'desktopId'"
            ),
        ])
    func duplicateKeys(target: String, body: String, param: String, message: String) async throws {
        let harness = try AppHarness()
        let response = await harness.send("POST", target, json: body)
        #expect(response.status == 400)
        let error = try Self.error(response)
        #expect(error.param == param)
        #expect(error.message == message)
        #expect(error.code == "invalid_parameter")
    }

    @Test func aKeyIsQuotedAsJSONWouldEscapeItAndCutAt80Characters() throws {
        let long = String(repeating: "k", count: 100)
        let error = RequestBody.duplicateKey("a\u{1B}b", in: .root)
        #expect(error.message == #"The body has a duplicate key 'a\u001bb'; each member may appear once."#)
        #expect(
            RequestBody.duplicateKey(long, in: .root).message
                == "The body has a duplicate key '\(String(repeating: "k", count: 80))'; each member may appear once.")
    }

    @Test func aDuplicateIsFoundDeepAndInALargeObjectInLinearTime() throws {
        let members = (0..<100_000).map { "\"k\($0)\": \($0)" }.joined(separator: ", ")
        let body = Array(#"{"a": [{"b": {\#(members), "k99999": 0}}]}"#.utf8)
        let error = try #require(throws: APIError.self) { try RequestBody.json(body) }
        #expect(error.param == "a[0].b.k99999")
        #expect(throws: Never.self) { try RequestBody.json(Array(#"{"a": {"x": 1}, "b": {"x": 1}}"#.utf8)) }
    }
}
