import SybilCore
import SybilNet
import SybilServer
import SybilWire
import Testing

/// RFC 9110 and RFC 6455 details of the answers about credentials and upgrades: the
/// challenge on a 401, the scheme in any case, one Authorization field only, the version on
/// a 426, and no upgrade for a HEAD.
@Suite("Authorization and upgrade conformance", .timeLimit(.minutes(2)))
struct AuthorizationConformanceTests {
    private static let upgradeFields = [
        ("Upgrade", "websocket"), ("Connection", "Upgrade"), ("Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ=="),
    ]

    @Test func a401NamesTheBearerScheme() async throws {
        let harness = try AppHarness()
        for authorization in [nil, "Bearer wrong", "Basic dGVzdA=="] as [String?] {
            let response = await harness.send("GET", "/v1/models", authorization: authorization)
            #expect(response.status == 401)
            #expect(response.headers["WWW-Authenticate"] == "Bearer", "\(authorization ?? "no header")")
        }
    }

    @Test(
        "the scheme is case-insensitive (RFC 9110 §11.1)",
        arguments: ["bearer test-token", "BEARER test-token", "BeArEr test-token", "Bearer  test-token"])
    func schemeInAnyCase(authorization: String) async throws {
        let harness = try AppHarness()
        #expect(await harness.send("GET", "/v1/models", authorization: authorization).status == 200)
    }

    @Test func wrongCredentialsInAnyCaseStay401() async throws {
        let harness = try AppHarness()
        for authorization in ["bearer TEST-TOKEN", "Bearertest-token", "Bearer", "Bearer ", "bearer test-token x"] {
            #expect(
                await harness.send("GET", "/v1/models", authorization: authorization).status == 401, "\(authorization)")
        }
    }

    @Test func twoAuthorizationFieldsAre400EvenWhenBothAreRight() async throws {
        let harness = try AppHarness()
        let response = await harness.send(
            "GET", "/v1/models", headers: [("Authorization", "Bearer \(AppHarness.token)")])
        #expect(response.status == 400)
        let body = try APIErrorBody.decode(json(response), at: .root)
        #expect(body.code == "duplicate_authorization")
    }

    @Test func a426NamesTheSupportedWebSocketVersion() async throws {
        let harness = try AppHarness()
        let response = await harness.send(
            "GET", "/agent/stream", headers: Self.upgradeFields + [("Sec-WebSocket-Version", "8")])
        #expect(response.status == 426)
        #expect(response.headers["Sec-WebSocket-Version"] == "13")
    }

    @Test func aHeadWithUpgradeFieldsDoesNotUpgrade() async throws {
        let harness = try AppHarness()
        let response = await harness.send(
            "HEAD", "/agent/stream", headers: Self.upgradeFields + [("Sec-WebSocket-Version", "13")])
        #expect(response.status == 400)
        #expect(
            await harness.send(
                "GET", "/agent/stream", headers: Self.upgradeFields + [("Sec-WebSocket-Version", "13")]
            ).status == 101)
    }
}
