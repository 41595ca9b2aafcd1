import Foundation
import SybilClient
import SybilCore
import SybilHTTP
import SybilStore
import Testing

/// What a server offers, learned once and remembered: the descriptor probe, the open health
/// check after a refused key, the store, the age limit, and a refresh when a request says
/// otherwise.
@Suite("Capability discovery")
struct CapabilityDiscoveryTests {
    private let base = URL(string: "http://models.test:8080/v1/")!
    private let descriptor = JSONWriter().string(from: AgentRoomFixtures.descriptor().jsonValue)

    /// Milliseconds since 1970, set by the test.
    private final class ManualTime: Sendable {
        let value = Locked<Int64>(1_700_000_000_000)
        var now: @Sendable () -> Int64 { { self.value.withLock { $0 } } }
        func advance(_ milliseconds: Int64) { value.withLock { $0 += milliseconds } }
    }

    @Test func aServerAnsweringTheDescriptorIsASybilServerAndIsAskedOnce() async {
        let http = RoomScriptedHTTP([RoomScriptedHTTP.answer(200, descriptor)])
        let store = InMemoryKeyValueStore()
        let time = ManualTime()
        let discovery = CapabilityDiscovery(http: http, store: store, now: time.now)
        let server = CapabilityDiscovery.Server(baseURL: base, key: "k1", headers: HTTPHeaders([("X-Org", "o")]))
        #expect(await discovery.capabilities(of: server) == .learned(.sybil))
        let probe = http.requests[0]
        #expect(probe.url.absoluteString == "http://models.test:8080/agent/descriptor")
        #expect(probe.headers["Authorization"] == "Bearer k1")
        #expect(probe.headers["X-Org"] == "o")
        // A second discovery (a new process) on the same store asks nothing.
        let again = CapabilityDiscovery(http: http, store: store, now: time.now)
        #expect(await again.capabilities(of: server) == .remembered(.sybil))
        #expect(http.requests.count == 1)
        #expect(ServerCapabilities.sybil.offers(.agentRoom) && ServerCapabilities.sybil.hasHealthCheck)
    }

    @Test func aServerWithoutTheDescriptorOffersChatsOnly() async {
        let http = RoomScriptedHTTP([RoomScriptedHTTP.answer(404, #"{"error":{"message":"no"}}"#)])
        let discovery = CapabilityDiscovery(http: http, store: InMemoryKeyValueStore(), now: ManualTime().now)
        let found = await discovery.capabilities(of: .init(baseURL: base))
        #expect(found == .learned(.openAICompatible))
        #expect(http.requests[0].headers["Authorization"] == nil, "no key, no Authorization")
        let offered = ServerSurface.allCases.filter { ServerCapabilities.openAICompatible.offers($0) }
        #expect(offered == [.chats])
        #expect(!ServerCapabilities.openAICompatible.hasHealthCheck)
    }

    @Test func aTwoHundredThatIsNotADescriptorIsNotASybilServer() async {
        let http = RoomScriptedHTTP([RoomScriptedHTTP.answer(200, "<html>catch-all</html>")])
        let discovery = CapabilityDiscovery(http: http, store: InMemoryKeyValueStore(), now: ManualTime().now)
        #expect(await discovery.capabilities(of: .init(baseURL: base)) == .learned(.openAICompatible))
    }

    @Test func aRefusedKeyIsSettledByTheOpenHealthCheck() async {
        let http = RoomScriptedHTTP([
            RoomScriptedHTTP.answer(401, #"{"error":{"message":"bad key"}}"#),
            RoomScriptedHTTP.answer(200, #"{"status":"ok"}"#),
            RoomScriptedHTTP.answer(401, #"{"error":{"message":"bad key"}}"#),
            RoomScriptedHTTP.answer(401, #"{"error":{"message":"bad key"}}"#),
        ])
        let discovery = CapabilityDiscovery(http: http, store: InMemoryKeyValueStore(), now: ManualTime().now)
        #expect(await discovery.capabilities(of: .init(baseURL: base, key: "old")) == .learned(.sybil))
        #expect(http.requests[1].url.path == "/healthz")
        #expect(http.requests[1].headers["Authorization"] == nil, "the health check is open")
        // A server refusing everything (OpenAI without a valid key) is not a Sybil server.
        let other = URL(string: "http://other.test")!
        #expect(await discovery.capabilities(of: .init(baseURL: other, key: "old")) == .learned(.openAICompatible))
    }

    @Test func anUnreachableOrFailingServerSettlesNothingAndIsAskedAgain() async {
        let http = RoomScriptedHTTP([
            RoomScriptedHTTP.answer(503, ""),
            RoomScriptedHTTP.answer(404, ""),
        ])
        let store = InMemoryKeyValueStore()
        let discovery = CapabilityDiscovery(http: http, store: store, now: ManualTime().now)
        guard case .unknown(let reason) = await discovery.capabilities(of: .init(baseURL: base)) else {
            Issue.record("a 503 settled the kind")
            return
        }
        #expect(reason.contains("503"))
        #expect(discovery.remembered(base) == nil)
        #expect(await discovery.capabilities(of: .init(baseURL: base)) == .learned(.openAICompatible))
    }

    @Test func aRememberedAnswerIsTrustedUntilItsMaximumAge() async {
        let http = RoomScriptedHTTP([
            RoomScriptedHTTP.answer(404, ""),
            RoomScriptedHTTP.answer(200, descriptor),
        ])
        let time = ManualTime()
        let discovery = CapabilityDiscovery(http: http, store: InMemoryKeyValueStore(), now: time.now)
        _ = await discovery.capabilities(of: .init(baseURL: base))
        time.advance(CapabilityDiscovery.maximumAge - 1)
        #expect(discovery.remembered(base) == .openAICompatible, "one millisecond before the limit")
        time.advance(1)
        #expect(discovery.remembered(base) == nil, "at the limit")
        #expect(await discovery.capabilities(of: .init(baseURL: base)) == .learned(.sybil))
        #expect(http.requests.count == 2)
    }

    @Test func aFourOhFourFromTheRoomRefreshesWhatWasRemembered() async {
        // Remembered as a Sybil server; later the room answers 404 (the server was replaced).
        let http = RoomScriptedHTTP([
            RoomScriptedHTTP.answer(200, descriptor),
            RoomScriptedHTTP.answer(404, ""),
        ])
        let store = InMemoryKeyValueStore()
        let discovery = CapabilityDiscovery(http: http, store: store, now: ManualTime().now)
        #expect(await discovery.capabilities(of: .init(baseURL: base)) == .learned(.sybil))
        #expect(await discovery.refresh(.init(baseURL: base)) == .learned(.openAICompatible))
        #expect(discovery.remembered(base) == .openAICompatible)
        #expect(
            discovery.remembered(URL(string: "http://models.test:8080")!) == .openAICompatible,
            "the same server with or without /v1")
        discovery.forget(base)
        #expect(discovery.remembered(base) == nil)
    }

    @Test func aStoredAnswerForAnotherServerOrUnreadableIsIgnored() async throws {
        let store = InMemoryKeyValueStore()
        let key = CapabilityDiscovery.storageKey(for: base)
        #expect(KeyValueStoreKey.isValid(key))
        try store.set(
            Array(#"{"baseURL":"http://elsewhere","kind":"sybil","learnedAt":1700000000000}"#.utf8), forKey: key)
        let discovery = CapabilityDiscovery(
            http: RoomScriptedHTTP([]), store: store, now: ManualTime().now)
        #expect(discovery.remembered(base) == nil)
        try store.set(Array("not json".utf8), forKey: key)
        #expect(discovery.remembered(base) == nil)
    }

    @Test func aProbeAnswerIsReadBounded() async {
        // A descriptor padded past the limit is cut, so it no longer decodes.
        let padded = String(descriptor.dropLast()) + #","pad":""# + String(repeating: "x", count: 70_000) + #""}"#
        let http = RoomScriptedHTTP([RoomScriptedHTTP.answer(200, padded)])
        let discovery = CapabilityDiscovery(http: http, store: InMemoryKeyValueStore(), now: ManualTime().now)
        #expect(await discovery.capabilities(of: .init(baseURL: base)) == .learned(.openAICompatible))
        #expect(CapabilityDiscovery.answerLimit == 65_536)
    }
}
