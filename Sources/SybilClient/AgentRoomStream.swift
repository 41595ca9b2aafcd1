import Foundation
import SybilCore
import SybilHTTP
import SybilNet
import SybilWire

/// Follows the Agent room's WebSocket `agent/stream?after=<cursor>&historyLost=close`
/// (docs/api/agent-room.md; the second parameter asks for close 4410, below):
/// the URL comes from the API base (`ws:` for `http:`, `wss:` for `https:`), the token goes in
/// the `Authorization` header, and every text frame is decoded whole with
/// `AgentStreamEvent.decode(frame:)` before it is handed on. A frame that breaks the contract
/// ends that connection (close 1007) with an error naming the frame and JSON path; nothing of
/// it is used. Close 4503 reports attachments unavailable; close 1013 (try again later) a busy
/// server, retried after the backoff with the same token; close 4410 a server whose history no
/// longer reaches the cursor replayed from (the room starts afresh before the next attempt,
/// which waits the backoff as well). Only a `401` upgrade is a rejected token: it is renewed
/// once and the stream reconnects at once. Any other close, 1008 included
/// (RFC 6455's generic policy violation), is a closed connection with its code and reason; a
/// token that did expire is refused by the next upgrade, which renews it.
///
/// After every drop it waits as ``ReconnectPolicy`` says (jitter from the injected random
/// source, the wait on the injected clock) and connects again, replaying from the cursor the
/// caller gives at that moment: the last merged cursor, so nothing between two connections is
/// missed.
public struct AgentRoomStream<C: Clock>: AgentRoomFeedSource where C.Duration == Duration {
    private let base: AgentAPIBase
    private let tokens: TokenProvider
    private let connector: any AgentRoomStreamConnector
    private let clock: C
    private let random: any RandomSource
    private let policy: ReconnectPolicy
    private let bufferLimit: Int

    /// A stream of the room at `base`. `bufferLimit` updates are held for a consumer that
    /// falls behind; past that the connection is dropped and replayed.
    public init(
        base: AgentAPIBase, tokens: TokenProvider, connector: any AgentRoomStreamConnector, clock: C,
        random: any RandomSource, policy: ReconnectPolicy = ReconnectPolicy(), bufferLimit: Int = 4_096
    ) {
        precondition(bufferLimit > 0, "the buffer holds at least one update")
        self.base = base
        self.tokens = tokens
        self.connector = connector
        self.clock = clock
        self.random = random
        self.policy = policy
        self.bufferLimit = bufferLimit
    }

    public func updates(replayFrom: @escaping @Sendable () async -> AgentCursor?) -> AsyncStream<AgentRoomStreamUpdate>
    {
        let (stream, continuation) = AsyncStream<AgentRoomStreamUpdate>.makeStream(
            bufferingPolicy: .bufferingOldest(bufferLimit))
        let task = Task { await follow(replayFrom: replayFrom, into: continuation) }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }

    /// The same updates as ``updates(replayFrom:)`` in a feed whose reader resumes on its own
    /// executor (the room model's main actor) when the I/O thread hands it a frame.
    func feed(replayFrom: @escaping @Sendable () async -> AgentCursor?) -> AgentRoomUpdateFeed {
        let feed = AgentRoomUpdateFeed(limit: bufferLimit)
        let writer = feed.writer
        let task = Task { await follow(replayFrom: replayFrom, into: writer) }
        writer.onTermination { task.cancel() }
        return feed
    }

    private func follow<Sink: AgentRoomUpdateSink>(
        replayFrom: @escaping @Sendable () async -> AgentCursor?, into continuation: Sink
    ) async {
        var policy = policy
        var renewedToken = false
        while !Task.isCancelled {
            let after = await replayFrom()
            let openedAt = clock.now
            var opened = false
            let end = await connection(after: after, opened: &opened, into: continuation)
            if Task.isCancelled { break }
            if case .authenticationFailed = end {
                if !renewedToken {
                    renewedToken = true
                    if (try? await tokens.refresh()) != nil {
                        continuation.offer(.disconnected(end, retryIn: .zero))
                        continue
                    }
                }
            } else if opened {
                renewedToken = false
            }
            let uptime: Duration? = opened ? openedAt.duration(to: clock.now) : nil
            let decision = policy.connectionDropped(uptime: uptime, random: AnyRandomSource(random))
            // The deadline is fixed before the update goes out, so whoever reacts to it (a test
            // advancing a manual clock) cannot race the wait.
            let deadline = clock.now.advanced(by: decision.delay)
            continuation.offer(.disconnected(end, retryIn: decision.delay))
            do { try await clock.sleep(until: deadline, tolerance: nil) } catch { break }
        }
        continuation.finish()
    }

    /// One connection; returns why it ended.
    private func connection<Sink: AgentRoomUpdateSink>(
        after: AgentCursor?, opened: inout Bool, into continuation: Sink
    ) async -> AgentRoomStreamUpdate.End {
        var headers = HTTPHeaders()
        do {
            if let token = try await tokens.token() { headers.set("Authorization", "Bearer \(token)") }
        } catch {
            return .transport("the sign-in token could not be read: \(error)")
        }
        // With a cursor, close 4410 is asked for: this client starts afresh when the server's
        // history no longer reaches it (the server sends it only when asked).
        let query = after.map {
            [("after", $0.rawValue), (AgentStreamClose.historyLostParameter, AgentStreamClose.historyLostOptIn)]
        }
        let url = base.webSocketURL(["agent", "stream"], query: query ?? [])
        let socket: any WebSocketConnection
        do {
            socket = try await connector.connect(to: url, headers: headers)
        } catch {
            switch error {
            case .unauthorized(let reason): return .authenticationFailed(reason)
            case .failed(let reason): return .transport(reason)
            }
        }
        opened = true
        // A request to end an earlier connection is no request to end this one.
        _ = continuation.takeReconnectRequest()
        continuation.offer(.connected(after: after))
        // Frames are read, decoded and yielded on the connection's own executor when it has
        // one (its I/O thread: one wake-up per frame); nothing there blocks.
        return await withTaskExecutorPreference(socket.consumerExecutor) {
            await readFrames(socket, after: after, into: continuation)
        }
    }

    /// Reads one open connection's frames into `continuation`; returns why it ended.
    private func readFrames<Sink: AgentRoomUpdateSink>(
        _ socket: any WebSocketConnection, after: AgentCursor?, into continuation: Sink
    ) async -> AgentRoomStreamUpdate.End {
        var frames = 0
        do {
            for try await incoming in socket.incoming {
                switch incoming {
                case .text(let text):
                    if continuation.takeReconnectRequest() {
                        // The reader can use nothing more of this connection: nothing of it is
                        // handed on, and the next one replays from the reader's cursor.
                        socket.close(code: WebSocketCloseCode.normal, reason: "reconnecting")
                        return .reconnectRequested
                    }
                    frames += 1
                    let event: AgentStreamEvent
                    do {
                        event = try AgentStreamEvent.decode(frame: text)
                    } catch {
                        socket.close(code: 1007, reason: "malformed frame")
                        return .malformedFrame("frame \(frames) of this connection: \(error)")
                    }
                    if !continuation.offer(.event(event)) {
                        socket.close(code: WebSocketCloseCode.goingAway, reason: "client fell behind")
                        return .fellBehind(bufferLimit)
                    }
                case .binary(let bytes):
                    frames += 1
                    socket.close(code: 1003, reason: "text frames only")
                    return .malformedFrame(
                        "frame \(frames) of this connection is binary (\(bytes.count) bytes); the stream sends JSON text"
                    )
                case .closed(let code, let reason):
                    switch code {
                    case WebSocketCloseCode.attachmentsUnavailable: return .attachmentsUnavailable
                    case WebSocketCloseCode.tryAgainLater:
                        return .serverBusy(reason.isEmpty ? "close code 1013" : reason)
                    case AgentStreamClose.historyLost:
                        return .historyLost(after: after)
                    default: return .closed(code: code, reason: reason)
                    }
                }
            }
        } catch {
            return .transport(String(describing: error))
        }
        if Task.isCancelled {
            socket.close(code: WebSocketCloseCode.goingAway, reason: "")
            return .closed(code: WebSocketCloseCode.goingAway, reason: "cancelled")
        }
        return .transport("the connection ended without a closing handshake")
    }
}

/// Where ``AgentRoomStream`` hands its updates: the `AsyncStream` of
/// ``AgentRoomStream/updates(replayFrom:)`` or the writer of an ``AgentRoomUpdateFeed``.
protocol AgentRoomUpdateSink: Sendable {
    /// Queues `update`; `false` when it was refused because the reader is the buffer's limit
    /// behind (a reader that stopped is not behind: its task is cancelled).
    @discardableResult
    func offer(_ update: AgentRoomStreamUpdate) -> Bool
    /// No more updates: the reader takes what is queued, then the end.
    func finish()
    /// Whether the reader asked for the open connection to end (taken: it ends one).
    func takeReconnectRequest() -> Bool
}

extension AsyncStream<AgentRoomStreamUpdate>.Continuation: AgentRoomUpdateSink {
    func offer(_ update: AgentRoomStreamUpdate) -> Bool {
        if case .dropped = yield(update) { return false }
        return true
    }

    /// An `AsyncStream`'s reader cannot ask.
    func takeReconnectRequest() -> Bool { false }
}

extension AgentRoomUpdateFeed.Writer: AgentRoomUpdateSink {
    func offer(_ update: AgentRoomStreamUpdate) -> Bool {
        yield(update) != .dropped
    }
}

/// A stream source whose updates can also be read as an ``AgentRoomUpdateFeed`` (the room model
/// reads them so; a test's script stays an `AsyncStream`).
protocol AgentRoomFeedSource: AgentRoomStreamSource {
    /// The updates ``AgentRoomStreamSource/updates(replayFrom:)`` gives, as a feed.
    func feed(replayFrom: @escaping @Sendable () async -> AgentCursor?) -> AgentRoomUpdateFeed
}

/// An existential random source handed to an API that takes `some RandomSource`.
private struct AnyRandomSource: RandomSource {
    let base: any RandomSource

    init(_ base: any RandomSource) { self.base = base }

    func nextUInt64() -> UInt64 { base.nextUInt64() }
}
