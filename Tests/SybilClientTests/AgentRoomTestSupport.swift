import Foundation
import SybilClient
import SybilCore
import SybilHTTP
import SybilNet
import SybilStore
import SybilTesting
import SybilWire
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

    /// A room over `api` whose stream connects through `sockets` on `clock` (base
    /// `https://h/api`, seeded backoff, UTC days).
    @MainActor
    static func model(api: any AgentRoomAPI, sockets: ScriptedAgentSockets, clock: ManualClock) throws
        -> AgentRoomModel
    {
        AgentRoomModel(
            api: api,
            stream: AgentRoomStream(
                base: try AgentAPIBase(string: "https://h/api"), tokens: tokens(), connector: sockets, clock: clock,
                random: SeededRandomSource(seed: 5)),
            timeZone: TimeZone(secondsFromGMT: 0)!)
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
final class RoomTokenRefresher: TokenRefresher {
    struct Refused: Error {}

    private let calls = Locked(0)
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
final class RoomScriptedHTTP: HTTPClient {
    private let script: Locked<[@Sendable (HTTPRequest) -> HTTPStreamingResponse]>
    private let log = Locked<[HTTPRequest]>([])

    init(_ script: [@Sendable (HTTPRequest) -> HTTPStreamingResponse]) { self.script = Locked(script) }

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
func roomBoundaries(seed: UInt64, count: Int) -> [String] {
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

/// The Agent room's REST surface in memory, answering like the reference server: pages by
/// cursor, the shared read position that never moves back, a descriptor. Calls outside the
/// room's reading surface fail the test. `failNext` makes the next calls of a kind throw.
final class FakeRoomAPI: AgentRoomAPI {
    enum Call: Hashable {
        case descriptor, messages, readState, markRead
    }

    private struct State {
        var messages: [AgentRoomMessage] = []
        var readCursor: AgentCursor?
        var descriptor = AgentRoomFixtures.descriptor()
        var failures: [Call: [AgentRoomError]] = [:]
        var calls: [Call] = []
        var pageRequests: [(after: AgentCursor?, before: AgentCursor?, limit: Int)] = []
        var markReads: [AgentCursor] = []
    }

    private let state = Locked(State())

    init(_ messages: [AgentRoomMessage] = []) { state.withLock { $0.messages = messages } }

    func append(_ messages: AgentRoomMessage...) { state.withLock { $0.messages += messages } }
    func setDescriptor(_ descriptor: AgentRoomDescriptor) { state.withLock { $0.descriptor = descriptor } }
    func setReadCursor(_ cursor: AgentCursor?) { state.withLock { $0.readCursor = cursor } }
    func failNext(_ call: Call, _ error: AgentRoomError) {
        state.withLock { $0.failures[call, default: []].append(error) }
    }

    var calls: [Call] { state.withLock { $0.calls } }
    var markReads: [AgentCursor] { state.withLock { $0.markReads } }
    var pageRequests: [(after: AgentCursor?, before: AgentCursor?, limit: Int)] { state.withLock { $0.pageRequests } }

    private func begin(_ call: Call) throws(AgentRoomError) {
        let failure = state.withLock { state -> AgentRoomError? in
            state.calls.append(call)
            guard var queued = state.failures[call], !queued.isEmpty else { return nil }
            let first = queued.removeFirst()
            state.failures[call] = queued
            return first
        }
        if let failure { throw failure }
    }

    func descriptor() async throws(AgentRoomError) -> AgentRoomDescriptor {
        try begin(.descriptor)
        return state.withLock { $0.descriptor }
    }

    func messages(after: AgentCursor?, before: AgentCursor?, limit: Int) async throws(AgentRoomError) -> AgentRoomPage {
        try begin(.messages)
        return state.withLock { state in
            state.pageRequests.append((after, before, limit))
            let all = state.messages
            let page: ArraySlice<AgentRoomMessage>
            if let after {
                page = all.filter { after < $0.cursor }.prefix(limit)
            } else if let before {
                page = all.filter { $0.cursor < before }.suffix(limit)
            } else {
                page = all.suffix(limit)
            }
            let hasMoreBefore = page.first.map { first in all.contains { $0.cursor < first.cursor } } ?? false
            return AgentRoomPage(
                messages: Array(page), nextCursor: page.last?.cursor ?? after, hasMoreBefore: hasMoreBefore)
        }
    }

    func readState() async throws(AgentRoomError) -> AgentReadState {
        try begin(.readState)
        return state.withLock { Self.readState($0) }
    }

    func markRead(_ cursor: AgentCursor) async throws(AgentRoomError) -> AgentReadState {
        try begin(.markRead)
        return state.withLock { state in
            state.markReads.append(cursor)
            if state.readCursor.map({ $0 < cursor }) ?? true { state.readCursor = cursor }
            return Self.readState(state)
        }
    }

    private static func readState(_ state: State) -> AgentReadState {
        AgentReadState(
            readCursor: state.readCursor,
            unread: state.messages.filter { message in
                message.countsAsUnread && (state.readCursor.map { $0 < message.cursor } ?? true)
            }.count)
    }

    func submit(_ submission: AgentRoomSubmission) async throws(AgentRoomError) -> AgentRoomReceipt {
        Issue.record("the room model never submits")
        throw .transport("unexpected submit")
    }

    func upload(_ file: AgentUploadFile) async throws(AgentRoomError) -> AgentAttachment {
        Issue.record("the room model never uploads")
        throw .transport("unexpected upload")
    }

    func original(of attachment: AgentAttachment) async throws(AgentRoomError) -> [UInt8] {
        Issue.record("the room model never downloads")
        throw .transport("unexpected download")
    }
}

/// Returns once `condition` holds over observable state; records an issue if it never does
/// within 30 s, so a broken test fails instead of hanging.
@MainActor
func waitForRoom(
    _ what: String, sourceLocation: SourceLocation = #_sourceLocation, _ condition: @escaping @MainActor () -> Bool
) async {
    if !(await ConditionWait.until(condition)) {
        Issue.record("gave up waiting for \(what)", sourceLocation: sourceLocation)
    }
}
