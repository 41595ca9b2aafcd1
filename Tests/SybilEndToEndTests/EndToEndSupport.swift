import Foundation
import Observation
import SybilClient
import SybilCore
import SybilHTTP
import SybilNet
import SybilServer
import SybilStore
import SybilTesting
import SybilWire
import Testing

/// The token every end-to-end server uses.
let endToEndToken = "e2e-token"

/// sess-42 on desk-1, the seeded chat with history.
let seededChat = WorkspaceChatKey(desktopId: "desk-1", projectId: "proj-app", sessionId: "sess-42")
/// sess-43 on desk-1, the seeded chat without history.
let emptyChat = WorkspaceChatKey(desktopId: "desk-1", projectId: "proj-app", sessionId: "sess-43")

/// Starts the reference server in-process on a free loopback port. With `clock` it runs on
/// that clock (a manual clock that is never advanced keeps a run where it is until stopped);
/// otherwise on the real one with no pause between tokens.
func startServer(
    clock: ManualClock? = nil, _ configure: (inout SybilServerOptions) -> Void = { _ in }
) throws -> ReferenceServer {
    var options = SybilServerOptions(token: endToEndToken)
    options.pace = clock == nil ? .zero : .milliseconds(40)
    configure(&options)
    let time = clock.map { ServerTime(clock: $0) { 1_800_000_000_000 } } ?? .live
    return try ReferenceServer(options: options, time: time)
}

/// A token chain holding the end-to-end token.
func endToEndTokens() -> TokenProvider {
    TokenProvider(current: TokenLocation(store: InMemorySecretStore(["e2e": endToEndToken]), account: "e2e"))
}

/// The live desktop client of `server`.
func desktopClient(_ server: ReferenceServer, http: any HTTPClient = DefaultHTTPClient.make()) -> WorkspaceDesktopClient
{
    WorkspaceDesktopClient(baseURL: server.baseURL, http: http, tokens: endToEndTokens())
}

/// A fresh temporary directory, removed by the caller.
func temporaryDirectory() -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("sybil-e2e-\(UUID().uuidString)")
    try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

/// Returns once `condition` holds over observable state; records an issue if it never does
/// within `limit`, so a broken test fails instead of hanging.
@MainActor
func waitUntil(
    _ what: String, limit: Duration = .seconds(60), sourceLocation: SourceLocation = #_sourceLocation,
    _ condition: @escaping @MainActor () -> Bool
) async {
    if !(await ConditionWait.until(limit: limit, condition)) {
        Issue.record("gave up waiting for \(what)", sourceLocation: sourceLocation)
    }
}

/// A phone: outbox copy on `store`, a host, sender and composer for `chat`, all over `rpc`.
@MainActor
struct Phone {
    let outbox: WorkspaceOutbox
    let host: WorkspaceChatHost
    let sender: WorkspaceOutboxSender
    let composer: WorkspaceChatComposer

    /// Launches: loads the outbox (a new generation), activates the host and waits for its
    /// first load.
    static func launch(
        chat: WorkspaceChatKey, store: any KeyValueStore, desktop: WorkspaceDesktopClient,
        submit: (any WorkspaceSubmitRPC)? = nil, ids: any IDGenerator = SequentialIDGenerator(prefix: "op")
    ) async throws -> Phone {
        let outbox = try WorkspaceOutbox(store: store)
        let host = WorkspaceChatHost(
            key: chat, rpc: desktop, clock: ContinuousClock(), random: SeededRandomSource(seed: 7))
        let sender = WorkspaceOutboxSender(
            outbox: outbox, rpc: submit ?? desktop, clock: ContinuousClock(), ids: ids, now: { 1_800_000_000_000 })
        let composer = WorkspaceChatComposer(
            host: host, outbox: outbox, sender: sender,
            uploader: AttachmentUploader(rpc: desktop, stagingDirectory: temporaryDirectory().path), ids: ids,
            now: { 1_800_000_000_000 })
        host.activate()
        await waitUntil("the first load") { host.appliedLoads > 0 || host.lastLoadError != nil }
        return Phone(outbox: outbox, host: host, sender: sender, composer: composer)
    }

    /// Texts of the canonical user rows in the host's window.
    var historyUserTexts: [String] {
        host.timeline.window.filter { $0.origin == .canonical && $0.type == .user }.map(\.text)
    }
}

/// A desktop seam whose submissions fail in transit (the phone is offline) until told otherwise.
final class UnreachableSubmit: WorkspaceSubmitRPC {
    struct Offline: Error, CustomStringConvertible {
        var description: String { "The network is down." }
    }

    func codexChatSubmit(_ submission: WorkspaceSubmission) async throws -> WorkspaceSubmitReceipt {
        throw Offline()
    }
}

/// Submissions passed to `inner`, counted.
final class CountingSubmit: WorkspaceSubmitRPC {
    private let inner: any WorkspaceSubmitRPC
    private let calls = Locked(0)

    init(_ inner: any WorkspaceSubmitRPC) { self.inner = inner }

    var count: Int { calls.withLock { $0 } }

    func codexChatSubmit(_ submission: WorkspaceSubmission) async throws -> WorkspaceSubmitReceipt {
        calls.withLock { $0 += 1 }
        return try await inner.codexChatSubmit(submission)
    }
}

/// Collects a follower's updates and lets a test wait for a state of them.
actor EventLog {
    struct Snapshot: Sendable {
        var connections = 0
        var disconnects = 0
        /// Events with their ids and the connection (1, 2, …) they arrived on.
        var events: [(id: String, event: WorkspaceEvent, connection: Int)] = []
    }

    private var state = Snapshot()
    private var waiters:
        [(id: Int, condition: @Sendable (Snapshot) -> Bool, continuation: CheckedContinuation<Bool, Never>)] = []
    private var nextWaiter = 0

    init<C: Clock<Duration>>(_ updates: AsyncStream<WorkspaceEventsClient<C>.Update>) {
        Task { await self.consume(updates) }
    }

    private func consume<C: Clock<Duration>>(_ updates: AsyncStream<WorkspaceEventsClient<C>.Update>) async {
        for await update in updates {
            switch update {
            case .connected: state.connections += 1
            case .disconnected: state.disconnects += 1
            case .event(let event, let id): state.events.append((id, event, state.connections))
            case .malformed(let problem): Issue.record("malformed event: \(problem)")
            }
            let ready = waiters.filter { $0.condition(state) }
            waiters.removeAll { $0.condition(state) }
            for waiter in ready { waiter.continuation.resume(returning: true) }
        }
    }

    func snapshot() -> Snapshot { state }

    /// Returns once `condition` holds; records an issue and returns after `limit` if it never
    /// does, so a broken test fails instead of hanging.
    func waitFor(
        _ what: String = "the events", limit: Duration = .seconds(30),
        sourceLocation: SourceLocation = #_sourceLocation, _ condition: @escaping @Sendable (Snapshot) -> Bool
    ) async {
        if condition(state) { return }
        nextWaiter += 1
        let id = nextWaiter
        let deadline = Task {
            try? await ContinuousClock().sleep(for: limit)
            self.giveUp(id)
        }
        let met = await withCheckedContinuation { waiters.append((id, condition, $0)) }
        deadline.cancel()
        if !met { Issue.record("gave up waiting for \(what)", sourceLocation: sourceLocation) }
    }

    private func giveUp(_ id: Int) {
        guard let index = waiters.firstIndex(where: { $0.id == id }) else { return }
        waiters.remove(at: index).continuation.resume(returning: false)
    }
}

/// An HTTP client that ends the first events stream after `cutAfterEvents` events, at an
/// event boundary (a dropped connection), and records the `Last-Event-ID` of every events
/// request. Other requests pass through.
final class CuttingHTTPClient: HTTPClient {
    private let inner = DefaultHTTPClient.make()
    private let cutAfterEvents: Int
    private let state = Locked<(streams: Int, lastEventIDs: [String?])>((0, []))

    init(cutAfterEvents: Int) { self.cutAfterEvents = cutAfterEvents }

    var lastEventIDs: [String?] { state.withLock { $0.lastEventIDs } }

    func send(_ request: HTTPRequest) async throws -> HTTPStreamingResponse {
        guard request.url.path.hasSuffix("/events") else { return try await inner.send(request) }
        let first = state.withLock { state -> Bool in
            state.streams += 1
            state.lastEventIDs.append(request.headers["Last-Event-ID"])
            return state.streams == 1
        }
        let response = try await inner.send(request)
        guard first else { return response }
        let limit = cutAfterEvents
        let (body, continuation) = AsyncThrowingStream<[UInt8], any Error>.makeStream()
        let pump = Task {
            var events = 0
            var previous: UInt8 = 0
            do {
                // Byte by byte up to the blank line that ends the limit-th event.
                for try await chunk in response.body {
                    for byte in chunk {
                        continuation.yield([byte])
                        if byte == 0x0A && previous == 0x0A { events += 1 }
                        previous = byte
                        if events == limit + 1 {  // the leading heartbeat comment also ends in a blank line
                            continuation.finish()
                            return
                        }
                    }
                }
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
        continuation.onTermination = { _ in pump.cancel() }
        return HTTPStreamingResponse(head: response.head, body: body)
    }
}

/// Upload calls passed to `inner`, recording chunk indices; after `failAfterChunks` chunks
/// every call fails, as if the phone died mid-upload.
final class CountingUploadRPC: WorkspaceUploadRPC {
    struct Died: Error {}

    private let inner: any WorkspaceUploadRPC
    private let failAfterChunks: Int?
    private let sent = Locked<[Int]>([])

    init(_ inner: any WorkspaceUploadRPC, failAfterChunks: Int? = nil) {
        self.inner = inner
        self.failAfterChunks = failAfterChunks
    }

    var chunksSent: [Int] { sent.withLock { $0 } }

    private func alive() throws {
        if let failAfterChunks, chunksSent.count >= failAfterChunks { throw Died() }
    }

    func beginUpload(callKey: String, _ request: AttachmentUploadRequest) async throws -> AttachmentUploadBegin {
        try alive()
        return try await inner.beginUpload(callKey: callKey, request)
    }

    func uploadChunk(callKey: String, uploadId: String, index: Int, base64: String) async throws {
        try alive()
        try await inner.uploadChunk(callKey: callKey, uploadId: uploadId, index: index, base64: base64)
        sent.withLock { $0.append(index) }
    }

    func finishUpload(callKey: String, uploadId: String, chunkCount: Int) async throws -> AttachmentUploadResult {
        try alive()
        return try await inner.finishUpload(callKey: callKey, uploadId: uploadId, chunkCount: chunkCount)
    }

    func cancelUpload(callKey: String, uploadId: String) async throws {
        try alive()
        try await inner.cancelUpload(callKey: callKey, uploadId: uploadId)
    }
}

/// A load seam that forwards to one desktop and can be switched to another (a desktop that
/// starts answering nonsense).
final class SwitchingChatRPC: WorkspaceChatRPC {
    private let current: Locked<any WorkspaceChatRPC>

    init(first: any WorkspaceChatRPC) { current = Locked(first) }

    func use(_ rpc: any WorkspaceChatRPC) { current.withLock { $0 = rpc } }

    private var rpc: any WorkspaceChatRPC { current.withLock { $0 } }

    func codexChatLoad(_ chat: WorkspaceChatKey) async throws -> WorkspaceChatLoadEnvelope {
        try await rpc.codexChatLoad(chat)
    }

    func codexChatLoadPageBefore(_ chat: WorkspaceChatKey, cursor: String) async throws -> WorkspaceChatPage {
        try await rpc.codexChatLoadPageBefore(chat, cursor: cursor)
    }

    func codexChatLoadThread(_ chat: WorkspaceChatKey, threadId: String) async throws -> WorkspaceChatPage {
        try await rpc.codexChatLoadThread(chat, threadId: threadId)
    }

    func codexChatLoadThreadPageBefore(
        _ chat: WorkspaceChatKey, threadId: String, cursor: String
    ) async throws -> WorkspaceChatPage {
        try await rpc.codexChatLoadThreadPageBefore(chat, threadId: threadId, cursor: cursor)
    }
}
