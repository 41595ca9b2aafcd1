import SybilCore
import Testing

@testable import SybilServer

/// Every JSON route's duplicate check compares member names by code points (RFC 8259), as the
/// contract readers do: `xK` and `x` + the Kelvin sign U+212A are two members.
@Suite("Request bodies: member names compare code points", .timeLimit(.minutes(2)))
struct RequestBodyMemberNameTests {
    @Test(arguments: [0, 20])
    func canonicallyEquivalentNamesAreTwoMembers(padding: Int) throws {
        let extra = (0..<padding).map { ",\"p\($0)\":0" }.joined()
        let value = try RequestBody.json(Array((#"{"xK":1,"x\u212a":2,"\u00e9":3,"e\u0301":4"# + extra + "}").utf8))
        guard case .object(let object) = value else {
            Issue.record("not an object: \(value)")
            return
        }
        #expect(object.members.count == 4 + padding)
    }

    @Test func theSameCodePointsTwiceAreStillADuplicate() {
        #expect(throws: APIError.self) { try RequestBody.json(Array(#"{"x\u212a":1,"x\u212a":2}"#.utf8)) }
    }

    @Test func aKelvinSignCallKeyIsRefusedByTheDesktopRoute() async throws {
        let harness = try AppHarness()
        let response = await harness.send(
            "POST", "/v1/workspaces/rpc", json: #"{"method": "desktops.list", "call\u212aey": null, "params": {}}"#)
        #expect(response.status == 400)
        #expect(try json(response)["error"]["param"] == "callKey")
    }
}
