import Foundation
import SybilCore
import SybilNet
import SybilStore
import SybilTesting
import Testing

@Suite("Chat streaming service", .timeLimit(.minutes(2)))
struct ChatStreamingServiceTests {
    /// A gate the test opens by hand.
    final class ManualGate: SendGate {
        private let opened = Locked<CheckedContinuation<Void, Never>?>(nil)
        private let isOpen = Locked(false)
        /// Notified when a caller starts waiting at the gate.
        let reached = ChangeSignal()
        var isWaiting: Bool { opened.withLock { $0 != nil } }
        func open() async {
            if isOpen.withLock({ $0 }) { return }
            await withCheckedContinuation { continuation in
                let resumeNow = isOpen.withLock { open -> Bool in
                    if open { return true }
                    opened.withLock { $0 = continuation }
                    return false
                }
                if resumeNow { continuation.resume() } else { reached.notify() }
            }
        }
        func release() {
            isOpen.withLock { $0 = true }
            opened.withLock { $0.take() }?.resume()
        }
    }

    final class Refresher: TokenRefresher {
        let calls = Locked(0)
        func refreshToken(expired: String?) async throws -> String {
            calls.withLock { $0 += 1 }
            return "fresh"
        }
    }

    private func service(_ http: StubHTTPClient, gate: (any SendGate)? = nil, refresher: Refresher = Refresher())
        -> ChatStreamingService<ManualClock>
    {
        let tokens = TokenProvider(
            current: .init(store: InMemorySecretStore(["session-token": "t0"]), account: "session-token"),
            refresher: refresher)
        return ChatStreamingService(
            baseURL: URL(string: "https://h/api")!, http: http, clock: ManualClock(), tokens: tokens, gate: gate,
            model: "sybil-scripted")
    }

    private func reply(_ service: ChatStreamingService<ManualClock>) async -> (String, (any Error)?) {
        var text = ""
        do {
            for try await delta in service.reply(to: [ChatMessage(role: "user", content: "hi")]) { text += delta }
            return (text, nil)
        } catch {
            return (text, error)
        }
    }

    private let ok = chunkEvent("Hal") + chunkEvent("lo") + "data: [DONE]\n\n"

    @Test func theRequestContract() async throws {
        let http = StubHTTPClient()
        http.respond(status: 200, headers: sseHeaders, body: ok)
        let (text, error) = await reply(service(http))
        #expect(text == "Hallo" && error == nil)
        let request = try #require(http.requests.first)
        #expect(request.method == "POST")
        #expect(request.url.absoluteString == "https://h/api/v1/chat/completions")
        #expect(request.headers["Authorization"] == "Bearer t0")
        #expect(request.headers["Accept"] == "text/event-stream")
        #expect(
            String(decoding: request.body ?? [], as: UTF8.self)
                == #"{"model":"sybil-scripted","messages":[{"role":"user","content":"hi"}],"stream":true}"#)
    }

    @Test func noRequestLeavesBeforeTheGateOpens() async {
        let http = StubHTTPClient()
        http.respond(status: 200, headers: sseHeaders, body: ok)
        let gate = ManualGate()
        let service = service(http, gate: gate)
        let consumer = Task { await reply(service) }
        #expect(await gate.reached.wait { gate.isWaiting }, "the service waits at the gate")
        #expect(http.requests.isEmpty, "the gate is closed")
        gate.release()
        let (text, _) = await consumer.value
        #expect(text == "Hallo")
        #expect(http.requests.count == 1)
    }

    @Test func aColdStartServerErrorRetriesOnlyOnce() async {
        let http = StubHTTPClient()
        http.respond(status: 503, body: #"{"error":{"message":"starting"}}"#)
        http.respond(status: 503, body: #"{"error":{"message":"still starting"}}"#)
        let (_, error) = await reply(service(http))
        #expect(http.requests.count == 2)
        #expect(
            error as? ChatStreamError
                == .serverError(status: 503, body: .init(message: "still starting"), retryAfter: nil))
        let recovering = StubHTTPClient()
        recovering.respond(status: 503, body: "")
        recovering.respond(status: 200, headers: sseHeaders, body: ok)
        #expect(await reply(service(recovering)).0 == "Hallo")
    }

    @Test func a401RefreshesTheTokenAndRetriesOnce() async {
        let http = StubHTTPClient()
        let refresher = Refresher()
        http.respond(status: 401, body: "")
        http.respond(status: 200, headers: sseHeaders, body: ok)
        let (text, _) = await reply(service(http, refresher: refresher))
        #expect(text == "Hallo")
        #expect(http.requests.map { $0.headers["Authorization"] } == ["Bearer t0", "Bearer fresh"])
        #expect(refresher.calls.withLock { $0 } == 1)
    }

    @Test("5xx and 401 share one retry: never a third request", arguments: [[503, 401], [401, 503], [401, 401]])
    func sharedRetryBudget(statuses: [Int]) async {
        let http = StubHTTPClient()
        for status in statuses { http.respond(status: status, body: "") }
        http.respond(status: 200, headers: sseHeaders, body: ok)  // must never be requested
        let (_, error) = await reply(service(http))
        #expect(http.requests.count == 2)
        #expect(error is ChatStreamError)
    }

    @Test func noRetryAfterTextArrived() async {
        let http = StubHTTPClient()
        http.respond(status: 200, headers: sseHeaders, body: chunkEvent("Hal"))  // interrupted
        http.respond(status: 200, headers: sseHeaders, body: ok)
        let (text, error) = await reply(service(http))
        #expect(text == "Hal")
        #expect(error as? ChatStreamError == .interrupted)
        #expect(http.requests.count == 1, "a retry would repeat text already shown")
    }

    @Test func signedOutFailsBeforeAnyRequest() async {
        let http = StubHTTPClient()
        let service = ChatStreamingService(
            baseURL: URL(string: "https://h")!, http: http, clock: ManualClock(),
            tokens: TokenProvider(current: .init(store: InMemorySecretStore(), account: "session-token")), gate: nil,
            model: "m")
        let (_, error) = await reply(service)
        #expect(error as? TokenError == .signedOut)
        #expect(http.requests.isEmpty)
    }
}
