import Foundation
import SybilClient
import SybilCore
import SybilNet
import SybilStore
import SybilTesting
import SybilWire
import Synchronization
import Testing

/// Builders and doubles shared by the Agent room client tests.
enum AgentRoomFixtures {
    /// `c-000000042`, the server's cursor for sequence 42.
    static func cursor(_ sequence: Int) -> AgentCursor {
        let digits = String(sequence)
        return AgentCursor("c-" + String(repeating: "0", count: max(0, 9 - digits.count)) + digits)!
    }

    /// A message of sequence `sequence` (id `msg-<sequence>`), created `sequence` minutes
    /// after 2026-10-14 09:00 UTC unless `createdAt` says otherwise.
    static func message(
        _ sequence: Int, role: AgentRoomMessage.Role = .assistant, visibility: AgentRoomMessage.Visibility = .public,
        text: String? = nil, requestId: String? = nil, createdAt: Int64? = nil
    ) -> AgentRoomMessage {
        AgentRoomMessage(
            messageId: "msg-\(sequence)", cursor: cursor(sequence), requestId: requestId, role: role,
            visibility: visibility, text: text ?? "message \(sequence)",
            createdAt: createdAt ?? (1_791_968_400_000 + Int64(sequence) * 60_000))
    }

    /// The frame the server sends for `event`.
    static func frame(_ event: AgentStreamEvent) -> String {
        JSONWriter().string(from: event.jsonValue)
    }

    /// A descriptor with v1 attachments (limits as advertised) or text-only.
    static func descriptor(attachments: Bool = true) -> AgentRoomDescriptor {
        AgentRoomDescriptor(
            roomId: "room-main", title: "Sybil Agent",
            attachments: attachments ? .init(limits: .v1, quota: AgentQuota(usedBytes: 1, limitBytes: 2)) : nil)
    }

    /// A token chain holding `token`, renewed by `refresher` when given.
    static func tokens(_ token: String = "t0k3n", refresher: (any TokenRefresher)? = nil) -> TokenProvider {
        TokenProvider(
            current: TokenLocation(store: InMemorySecretStore(["agent": token]), account: "agent"), refresher: refresher
        )
    }
}

/// A token refresher that hands out `fresh-1`, `fresh-2`, … and counts its calls; with
/// `fails` it refuses.
final class CountingRefresher: TokenRefresher {
    struct Refused: Error {}

    private let calls = Mutex(0)
    private let fails: Bool

    init(fails: Bool = false) { self.fails = fails }

    var count: Int { calls.withLock { $0 } }

    func refreshToken(expired: String?) async throws -> String {
        let call = calls.withLock { count -> Int in
            count += 1
            return count
        }
        if fails { throw Refused() }
        return "fresh-\(call)"
    }
}

/// An HTTP client answering from a script, one response per request in order, recording each
/// request; a request past the end of the script fails the test.
final class ScriptedHTTPClient: HTTPClient {
    private let script: Mutex<[@Sendable (HTTPRequest) -> HTTPStreamingResponse]>
    private let log = Mutex<[HTTPRequest]>([])

    init(_ script: [@Sendable (HTTPRequest) -> HTTPStreamingResponse]) { self.script = Mutex(script) }

    var requests: [HTTPRequest] { log.withLock { $0 } }

    struct Unexpected: Error, CustomStringConvertible {
        var description: String
    }

    func send(_ request: HTTPRequest) async throws -> HTTPStreamingResponse {
        log.withLock { $0.append(request) }
        guard let next = script.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) else {
            Issue.record("unexpected request \(request.method) \(request.url)")
            throw Unexpected(description: "unexpected request \(request.method) \(request.url)")
        }
        return next(request)
    }

    /// A response with `body` in one chunk.
    static func answer(_ status: Int, _ body: String, headers: [(String, String)] = [])
        -> @Sendable (HTTPRequest) -> HTTPStreamingResponse
    {
        { _ in
            let (stream, continuation) = AsyncThrowingStream<[UInt8], any Error>.makeStream()
            continuation.yield(Array(body.utf8))
            continuation.finish()
            return HTTPStreamingResponse(
                head: HTTPResponseHead(status: status, headers: HTTPHeaders(headers)), body: stream)
        }
    }
}

/// The first `count` boundaries `AgentRoomHTTPClient` draws from `SeededRandomSource(seed:)`.
func expectedBoundaries(seed: UInt64, count: Int) -> [String] {
    let random = SeededRandomSource(seed: seed)
    return (0..<count).map { _ in
        var bytes: [UInt8] = []
        for _ in 0..<2 {
            let value = random.nextUInt64()
            for shift in stride(from: 56, through: 0, by: -8) {
                bytes.append(UInt8(truncatingIfNeeded: value >> shift))
            }
        }
        return "sybil-" + Hex.string(bytes)
    }
}
