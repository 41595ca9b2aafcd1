import Foundation
import Observation
import SybilClient
import SybilCore
import SybilNet
import SybilServer
import SybilTesting
import SybilWire
import Synchronization

// `agent-outbox`: the Agent room outbox against the reference server in this process
// (in-memory storage, no pause between agent steps, loopback, a bearer token).
//
// The outbox path: 1,000 messages queued one after another through `AgentOutbox.enqueue`
// (each saved atomically on disk with fsync before it returns) while the sender is stopped,
// as when the agent works or the network is down; then `AgentOutboxSender` sends them one at
// a time over HTTP, each confirmed by its canonical echo from the `agent/stream` WebSocket,
// timed until the last entry is confirmed. The baseline: 1,000 bare `POST agent/messages`
// of the same submissions (the same JSON bytes), one at a time, through a URLSession client.
// Each path runs on a fresh server; best of the rounds; the ratio is messages per second of
// the delivery (queued → confirmed) over the bare POSTs.

private let agentBenchToken = "bench-token"
private let agentBenchCreatedAt: Int64 = 1_800_000_000_000

private struct AgentOutboxBenchFailure: Error, CustomStringConvertible {
    var description: String
}

private func startAgentBenchServer() throws -> ReferenceServer {
    var options = SybilServerOptions(token: agentBenchToken)
    options.storage = .inMemory
    options.pace = .zero
    options.messagesPerMinute = 1_000_000
    return try ReferenceServer(options: options)
}

private func agentBenchText(_ index: Int) -> String {
    "Message \(index): summarise the build failures and suggest a fix."
}

/// `POST agent/messages` of `submission`, the body as the outbox path sends it.
private func agentBenchRequest(_ baseURL: URL, _ submission: AgentRoomSubmission) -> HTTPRequest {
    HTTPRequest(
        method: "POST", url: APIEndpoint.url(base: baseURL, path: "agent/messages"),
        headers: HTTPHeaders([("Authorization", "Bearer \(agentBenchToken)"), ("Content-Type", "application/json")]),
        body: JSONWriter().bytes(from: submission.jsonValue), timeout: .seconds(30))
}

/// The submit route over HTTP (the room's HTTP client replaces this once it exists).
private struct AgentBenchRoomAPI: AgentRoomAPI {
    let baseURL: URL
    let http: any HTTPClient

    func submit(_ submission: AgentRoomSubmission) async throws(AgentRoomError) -> AgentRoomReceipt {
        let status: Int
        let bytes: [UInt8]
        let retryAfter: String?
        do {
            let response = try await http.send(agentBenchRequest(baseURL, submission))
            status = response.head.status
            retryAfter = response.head.headers["Retry-After"]
            bytes = try await response.collect()
        } catch {
            throw .transport(String(describing: error))
        }
        guard (200..<300).contains(status) else {
            throw AgentRoomError.from(status: status, body: bytes, retryAfter: retryAfter)
        }
        do {
            return try AgentRoomReceipt.decode(try JSONReader().parse(bytes), at: .root)
        } catch {
            throw .malformedAnswer(error.description)
        }
    }

    private static let unused = AgentRoomError.transport("not used by the benchmark")
    func descriptor() async throws(AgentRoomError) -> AgentRoomDescriptor { throw Self.unused }
    func messages(after: AgentCursor?, before: AgentCursor?, limit: Int) async throws(AgentRoomError) -> AgentRoomPage {
        throw Self.unused
    }
    func readState() async throws(AgentRoomError) -> AgentReadState { throw Self.unused }
    func markRead(_ cursor: AgentCursor) async throws(AgentRoomError) -> AgentReadState { throw Self.unused }
    func upload(_ file: AgentUploadFile) async throws(AgentRoomError) -> AgentAttachment { throw Self.unused }
    func original(of attachment: AgentAttachment) async throws(AgentRoomError) -> [UInt8] { throw Self.unused }
}

/// 1,000 bare POSTs, one at a time; seconds.
private func agentBenchBare(count: Int, round: Int) async throws -> Double {
    let server = try startAgentBenchServer()
    let http = URLSessionHTTPClient()
    let start = ContinuousClock.now
    for index in 0..<count {
        let submission = AgentRoomSubmission(
            requestId: "bare-\(round)-\(index)", text: agentBenchText(index), createdAt: agentBenchCreatedAt)
        let response = try await http.send(agentBenchRequest(server.baseURL, submission))
        let body = try await response.collect()
        guard response.head.status == 202 else {
            throw AgentOutboxBenchFailure(description: "bare POST answered \(response.head.status)")
        }
        blackHole(body)
    }
    let elapsed = seconds(start.duration(to: ContinuousClock.now))
    await server.shutdown(grace: .zero)
    return elapsed
}

/// What one outbox run measured.
private struct AgentOutboxBenchRun {
    /// Seconds to queue every message (each saved before the next).
    var enqueue: Double
    /// Seconds from starting the sender until every message was confirmed.
    var delivery: Double
    /// Outbox file writes during the delivery.
    var deliveryWrites: Int
}

/// 1,000 messages queued, then sent until each is confirmed by its echo.
@MainActor
private func agentBenchOutbox(count: Int, round: Int) async throws -> AgentOutboxBenchRun {
    let server = try startAgentBenchServer()
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
        "sybil-bench-agent-outbox-\(getpid())-\(round)"
    ).path
    try? FileManager.default.removeItem(atPath: directory)
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let writes = Mutex(0)
    let outbox = try await AgentOutbox.open(
        directory: directory, baseURL: server.baseURL, ids: SequentialIDGenerator(prefix: "outbox-\(round)"),
        now: { agentBenchCreatedAt },
        checkpoint: { step in if step == .syncedDirectory { writes.withLock { $0 += 1 } } })
    let sender = AgentOutboxSender(
        outbox: outbox, api: AgentBenchRoomAPI(baseURL: server.baseURL, http: URLSessionHTTPClient()))

    // The room's stream: every message goes to the sender, as the room model's hook does.
    var headers = HTTPHeaders()
    headers.set("Authorization", "Bearer \(agentBenchToken)")
    let socket = try await SocketWebSocket.connect(
        to: URL(string: "ws://127.0.0.1:\(server.http.port)/agent/stream")!,
        options: WebSocketOptions(headers: headers), random: SeededRandomSource(seed: 9), clock: ContinuousClock())
    let follower = Task { @MainActor in
        do {
            for try await frame in socket.incoming {
                guard case .text(let text) = frame,
                    case .message(let message) = try AgentStreamEvent.decode(frame: text)
                else { continue }
                sender.messageMerged(message)
            }
        } catch {
            if !Task.isCancelled { print("  agent-outbox: the stream failed: \(error)") }
        }
    }

    let queuing = ContinuousClock.now
    for index in 0..<count { try await outbox.enqueue(text: agentBenchText(index)) }
    let enqueue = seconds(queuing.duration(to: ContinuousClock.now))
    let writesBefore = writes.withLock { $0 }
    sender.start()
    let start = ContinuousClock.now
    let confirmed = await ConditionWait.until(limit: .seconds(600), recheck: .milliseconds(100)) {
        outbox.pendingChanges == 0 && outbox.entries.allSatisfy { $0.state == .confirmed }
    }
    let elapsed = seconds(start.duration(to: ContinuousClock.now))
    follower.cancel()
    socket.close(code: WebSocketCloseCode.normal, reason: "")
    await follower.value
    await sender.stop()
    await server.shutdown(grace: .zero)
    guard confirmed else {
        let states = Dictionary(grouping: outbox.entries, by: \.state).mapValues(\.count)
        throw AgentOutboxBenchFailure(description: "not every message was confirmed: \(states)")
    }
    guard outbox.entries.count == count, outbox.entries.allSatisfy({ $0.attempts == 1 }) else {
        throw AgentOutboxBenchFailure(description: "a message was sent more than once")
    }
    return AgentOutboxBenchRun(
        enqueue: enqueue, delivery: elapsed, deliveryWrites: writes.withLock { $0 } - writesBefore)
}

/// `agent-outbox`: `SYBIL_BENCH_AGENT_MESSAGES` changes the 1,000 messages per path; best of
/// `rounds` (at most 3: each round sends 2,000 messages).
@MainActor
func benchmarkAgentOutbox(repetitions: Int) async {
    let count = Int(ProcessInfo.processInfo.environment["SYBIL_BENCH_AGENT_MESSAGES"] ?? "") ?? 1_000
    let rounds = max(1, min(repetitions, 3))
    do {
        var bare = Double.infinity
        var best: AgentOutboxBenchRun?
        for round in 0..<rounds {
            // The paths take turns, so a noisy stretch of the shared machine hits both.
            bare = min(bare, try await agentBenchBare(count: count, round: round))
            let run = try await agentBenchOutbox(count: count, round: round)
            if best.map({ run.delivery < $0.delivery }) ?? true { best = run }
        }
        guard let best else { return }
        let bareRate = Double(count) / bare
        let deliveryRate = Double(count) / best.delivery
        print(
            "agent outbox: \(count) messages, best of \(rounds); bare POST agent/messages \(format(bareRate, 0)) msg/s "
                + "(\(format(bare, 2)) s)")
        print(
            "  queued one by one, each saved (fsync) before the next: \(format(Double(count) / best.enqueue, 0)) msg/s "
                + "(\(format(best.enqueue, 2)) s)")
        print(
            "  queued → sent in order → confirmed by the stream's echo: \(format(deliveryRate, 0)) msg/s "
                + "(\(format(best.delivery, 2)) s, \(best.deliveryWrites) file writes, "
                + "\(format(Double(best.deliveryWrites) / Double(count), 2)) per message); "
                + "ratio to bare POSTs \(format(deliveryRate / bareRate)) x")
    } catch {
        print("agent outbox: failed: \(error)")
    }
}
