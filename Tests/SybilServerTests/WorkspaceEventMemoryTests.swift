import SybilCore
import SybilHTTP
import SybilTesting
import SybilWire
import Testing

@testable import SybilServer

/// A long user message streamed to many clients: overlays go out as deltas that do not repeat
/// the message, and what slow clients hold stays under the server's total bound.
@Suite("Workspace events: bytes sent and held", .timeLimit(.minutes(2)))
struct WorkspaceEventMemoryTests {
    private static let chat = WorkspaceChatKey(desktopId: "desk-1", projectId: "proj-app", sessionId: "sess-42")
    private static let eventsTarget = "/v1/workspaces/events?desktopId=desk-1&projectId=proj-app&sessionId=sess-42"
    /// 1.5 MB of text the agent's reply does not depend on past its first words.
    private static let longText = "Summarise this log. " + String(repeating: "0123456789abcdef", count: 93_750)

    private func service(fanOut: WorkspaceEventFanOut = WorkspaceEventFanOut()) throws -> WorkspaceDesktopService {
        var options = SybilServerOptions(token: "t")
        options.pace = .zero
        let time = ServerTime(clock: ManualClock()) { 1_800_000_000_000 }
        return WorkspaceDesktopService(
            store: try WorkspaceStore(
                options.storage, agent: ScriptedAgent(seed: options.seed), now: 1_800_000_000_000),
            uploads: try WorkspaceUploadStore(options.storage), options: options, time: time, fanOut: fanOut)
    }

    /// Sends `text` and waits until its run has settled.
    private func sendAndSettle(_ service: WorkspaceDesktopService, text: String) async throws {
        let params = #""desktopId":"desk-1","projectId":"proj-app","sessionId":"sess-42""#
        let body =
            #"{"method":"run.codexChatSubmit","callKey":"run.codexChatSubmit:op-1:m1","params":{\#(params),"operationId":"op-1","mutationId":"m1","mode":"send","text":\#(JSONWriter.quoted(text)),"attachments":[]}}"#
        let response = try await service.call(
            HTTPServerRequest(method: "POST", target: "/v1/workspaces/rpc", headers: [], body: Array(body.utf8)))
        #expect(response.status == 200)
        await service.quiescent()
    }

    private func stream(_ service: WorkspaceDesktopService) async throws -> @Sendable (HTTPResponseStream) async -> Void
    {
        let response = try await service.eventStream(
            HTTPServerRequest(method: "GET", target: Self.eventsTarget, headers: [], body: []))
        guard case .stream(let producer) = response.body else { throw Unexpected() }
        return producer
    }

    private struct Unexpected: Error {}

    @Test func aLongMessageStreamedTokenByTokenIsSentOnce() async throws {
        let service = try service()
        let producer = try await stream(service)
        let (chunks, delivered) = AsyncStream.makeStream(of: [UInt8].self)
        let stream = HTTPResponseStream { delivered.yield($0) }
        let reading = Task { await producer(stream) }
        try await sendAndSettle(service, text: Self.longText)
        let tokens = ScriptedAgent(seed: SybilServerOptions(token: "t").seed).reply(to: Self.longText).tokens
        #expect(tokens.count >= 3)
        // The session event is the settled run's last.
        var bytes: [UInt8] = []
        for await chunk in chunks {
            bytes += chunk
            if String(decoding: chunk, as: UTF8.self).contains("event: session\n") { break }
        }
        stream.markClosed()
        reading.cancel()
        await reading.value
        // Whole overlays on every token would send the message once per token and more.
        #expect(bytes.count < Self.longText.utf8.count + 64 << 10, "\(bytes.count) bytes for \(tokens.count) tokens")
        // The deltas rebuild every overlay the run showed.
        var overlay: LiveOverlay?
        var shown: [LiveOverlay] = []
        for event in events(bytes) where event.type.hasPrefix("overlay") {
            switch try WorkspaceEvent.decode(name: event.type, data: event.dataBytes) {
            case .overlay(let whole): overlay = whole
            case .overlayDelta(let delta): overlay = try #require(overlay.flatMap { delta.applied(to: $0) })
            default: break
            }
            shown.append(try #require(overlay))
        }
        let lastRunning = try #require(shown.dropLast().last)
        #expect(lastRunning.blocks.first?.text == Self.longText)
        // The last token's delta may have been replaced by the new epoch's overlay (only the
        // newest matters to a stream that lags; one that lags the whole run sees no reply at
        // all, or only its thinking), so the reply shown, when there is one, is a prefix of the whole.
        if let reply = lastRunning.blocks.last(where: { $0.type == .agentReply })?.text {
            #expect(!reply.isEmpty && tokens.joined().hasPrefix(reply))
        }
        // Revisions only go up (a stream that lags gets consecutive deltas joined into one).
        let revisions = shown.dropFirst().dropLast().map(\.revision)
        #expect(revisions == revisions.sorted() && Set(revisions).count == revisions.count)
        #expect(shown.last?.settlementEpoch == (shown.first?.settlementEpoch ?? 0) + 1)
        #expect(shown.last?.blocks.isEmpty == true)
    }

    @Test func aHundredClientsThatNeverReadHoldLessThanTheTotalBound() async throws {
        let fanOut = WorkspaceEventFanOut()
        let service = try service(fanOut: fanOut)
        let gate = Gate()
        var readers: [Task<Void, Never>] = []
        var streams: [HTTPResponseStream] = []
        for _ in 0..<100 {
            let producer = try await stream(service)
            let stream = HTTPResponseStream(deliver: { _ in }, room: { await gate.wait() })
            streams.append(stream)
            readers.append(Task { await producer(stream) })
        }
        try await sendAndSettle(service, text: Self.longText)
        let limit = WorkspaceEventFanOut.totalByteLimit
        // 100 copies of the message would be 150 MB; the bound ended the largest holders.
        #expect(fanOut.peakHeldBytes <= limit)
        #expect(fanOut.peakHeldBytes > limit - 2 * Self.longText.utf8.count, "the bound, not luck, limited it")
        #expect(fanOut.heldBytes <= limit)
        // Each that is left holds its newest overlay once, not once per token.
        let left = fanOut.subscriberCount
        #expect(left > 0 && left < 100)
        for stream in streams { stream.markClosed() }
        gate.open()
        for reader in readers {
            reader.cancel()
            await reader.value
        }
        #expect(fanOut.subscriberCount == 0)
        #expect(fanOut.heldBytes == 0)
    }
}

/// Suspends callers of ``wait()`` until ``open()``.
private final class Gate: Sendable {
    private let state = Locked<(open: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    func wait() async {
        await withCheckedContinuation { continuation in
            let run = state.withLock { state in
                if state.open { return true }
                state.waiters.append(continuation)
                return false
            }
            if run { continuation.resume() }
        }
    }

    func open() {
        let waiters = state.withLock { state in
            state.open = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }
}
