import Foundation
import SybilCore
import SybilHTTP
import SybilNet
import SybilWire

/// Follows `GET /v1/workspaces/events` for one chat (docs/api/workspaces.md): decodes every
/// event strictly, remembers the last event id, and after a drop reconnects with backoff
/// (``ReconnectPolicy``, jitter from the injected random source, waits on the injected clock)
/// sending `Last-Event-ID`, so the desktop replays what was missed (or says `reset`).
///
/// An `overlay.delta` is applied to the overlay the stream gave before it and reported as
/// the whole ``WorkspaceEvent/overlay(_:)`` it makes, so consumers see overlays only. A delta
/// whose base is not that overlay is reported as it came (``WorkspaceEvent/overlayDelta(_:)``):
/// the consumer applies it to the overlay it shows or reloads the chat.
public struct WorkspaceEventsClient<C: Clock>: Sendable where C.Duration == Duration {
    /// What the follower reports, in order.
    public enum Update: Sendable, Hashable {
        /// A connection opened (the first event after it is the chat's current overlay or a replay).
        case connected
        /// An event, with its id.
        case event(WorkspaceEvent, id: String)
        /// An event broke the contract (the text names the JSON path); it was skipped, and the
        /// chat should reload rather than trust what it missed.
        case malformed(String)
        /// The connection dropped or could not open; the next attempt starts after `retryIn`.
        case disconnected(reason: String, retryIn: Duration)
    }

    /// The largest event the follower takes (an overlay of a long turn fits easily).
    public static var maximumEventBytes: Int { 4 << 20 }
    /// Updates held for a consumer that has fallen behind; past that the connection is dropped
    /// and resumed from the last update it got (the desktop replays the rest).
    public static var bufferLimit: Int { 4_096 }
    /// Silence after which a connection counts as dead: three missed 15 s heartbeats.
    public static var stallTimeout: Duration { .seconds(45) }

    private let chat: WorkspaceChatKey
    private let baseURL: URL
    private let http: any HTTPClient
    private let tokens: TokenProvider
    private let clock: C
    private let random: any RandomSource
    private let policy: ReconnectPolicy

    /// A follower of `chat`'s events on the server at `baseURL`.
    public init(
        chat: WorkspaceChatKey, baseURL: URL, http: any HTTPClient, tokens: TokenProvider, clock: C,
        random: any RandomSource, policy: ReconnectPolicy = ReconnectPolicy()
    ) {
        self.chat = chat
        self.baseURL = baseURL
        self.http = http
        self.tokens = tokens
        self.clock = clock
        self.random = random
        self.policy = policy
    }

    /// Follows the chat until the consumer stops iterating (which cancels the request), starting
    /// after `lastEventId` when given.
    public func updates(after lastEventId: String? = nil) -> AsyncStream<Update> {
        let (stream, continuation) = AsyncStream<Update>.makeStream(bufferingPolicy: .bufferingOldest(Self.bufferLimit))
        let task = Task { await follow(after: lastEventId, into: continuation) }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }

    private func follow(after start: String?, into continuation: AsyncStream<Update>.Continuation) async {
        var lastEventId = start
        let overlay = StreamOverlay()
        var policy = policy
        var renewedToken = false
        while !Task.isCancelled {
            let openedAt = clock.now
            var opened = false
            let reason: String
            do {
                reason = try await connect(
                    lastEventId: &lastEventId, overlay: overlay, opened: &opened, into: continuation)
            } catch let error as WorkspaceDesktopError {
                if case .unauthorized = error, !renewedToken, (try? await tokens.refresh()) != nil {
                    renewedToken = true
                    continue
                }
                reason = error.description
            } catch {
                if Task.isCancelled { break }
                reason = String(describing: error)
            }
            if opened { renewedToken = false }
            let uptime: Duration? = opened ? openedAt.duration(to: clock.now) : nil
            let decision = policy.connectionDropped(uptime: uptime, random: ErasedRandomSource(base: random))
            continuation.yield(.disconnected(reason: reason, retryIn: decision.delay))
            do { try await clock.sleep(for: decision.delay) } catch { break }
        }
        continuation.finish()
    }

    /// One connection; returns why it ended.
    private func connect(
        lastEventId: inout String?, overlay: StreamOverlay, opened: inout Bool,
        into continuation: AsyncStream<Update>.Continuation
    ) async throws -> String {
        var headers = HTTPHeaders([("Accept", "text/event-stream")])
        if let token = try? await tokens.token() { headers.set("Authorization", "Bearer \(token)") }
        if let lastEventId { headers.set("Last-Event-ID", lastEventId) }
        let url = APIEndpoint.url(
            base: baseURL, path: "v1/workspaces/events",
            query: [("desktopId", chat.desktopId), ("projectId", chat.projectId), ("sessionId", chat.sessionId)])
        let response = try await http.send(HTTPRequest(method: "GET", url: url, headers: headers))
        guard response.head.status == 200 else {
            let body = (try? await response.collect(limit: 64 << 10)) ?? []
            throw WorkspaceDesktopError.from(
                status: response.head.status, body: body, retryAfter: response.head.headers["Retry-After"])
        }
        guard let type = response.head.headers["Content-Type"], type.lowercased().hasPrefix("text/event-stream") else {
            throw WorkspaceDesktopError.malformedAnswer(
                "the events stream is \(response.head.headers["Content-Type"] ?? "untyped"), not text/event-stream")
        }
        opened = true
        continuation.yield(.connected)
        let watch = StreamStallWatch(clock: clock, timeout: Self.stallTimeout)
        let seen = LastEventID(lastEventId)
        defer { lastEventId = seen.value }
        return try await withThrowingTaskGroup(of: String.self) { group in
            group.addTask {
                try await Self.read(
                    response.body, watch: watch, lastEventId: seen, overlay: overlay, into: continuation)
            }
            group.addTask {
                try await watch.waitForStall()
                return "no data for \(Self.stallTimeout) (not even a heartbeat)"
            }
            defer { group.cancelAll() }
            return try await group.next() ?? "the desktop ended the stream"
        }
    }

    /// Reads one connection's events until it ends; returns why.
    private static func read(
        _ body: AsyncThrowingStream<[UInt8], any Error>, watch: StreamStallWatch<C>, lastEventId: LastEventID,
        overlay: StreamOverlay, into continuation: AsyncStream<Update>.Continuation
    ) async throws -> String {
        var parser = EventStreamParser(limits: .init(maximumEventBytes: maximumEventBytes))
        for try await chunk in body {
            watch.touch()
            let events: [ServerSentEvent]
            do {
                events = try parser.feed(chunk)
            } catch {
                // Reading stops: the stream is dropped and its connection closed.
                return "\(error)"
            }
            for event in events {
                let update: Update
                var shown = overlay.value
                do {
                    var decoded = try WorkspaceEvent.decode(name: event.type, data: event.dataBytes)
                    switch decoded {
                    case .overlay(let whole):
                        shown = whole
                    case .overlayDelta(let delta):
                        if let base = shown, let applied = delta.applied(to: base) {
                            shown = applied
                            decoded = .overlay(applied)
                        } else if let base = shown,
                            (delta.settlementEpoch, delta.revision) <= (base.settlementEpoch, base.revision)
                        {
                            // Old news: the overlay shown is already newer; it stays the base.
                        } else {
                            shown = nil
                        }
                    default:
                        break
                    }
                    update = .event(decoded, id: event.lastEventId)
                } catch {
                    update = .malformed("\(event.type) event \(event.lastEventId): \(error)")
                }
                // Only an event the consumer will get moves the resume point (and the overlay
                // the next delta applies to).
                if case .dropped = continuation.yield(update) {
                    return "the app fell \(bufferLimit) updates behind; resuming from the last one it got"
                }
                overlay.value = shown
                if !event.lastEventId.isEmpty { lastEventId.value = event.lastEventId }
            }
        }
        return "the desktop ended the stream"
    }
}

/// The last event id seen on a connection, shared by its reader and whoever reconnects.
private final class LastEventID: Sendable {
    private let id: Locked<String?>

    init(_ id: String?) { self.id = Locked(id) }

    var value: String? {
        get { id.withLock { $0 } }
        set { id.withLock { $0 = newValue } }
    }
}

/// The overlay a follower's stream has given so far (whole, or as deltas applied to it);
/// `nil` before the first or after a delta that did not apply.
private final class StreamOverlay: Sendable {
    private let overlay = Locked<LiveOverlay?>(nil)

    var value: LiveOverlay? {
        get { overlay.withLock { $0 } }
        set { overlay.withLock { $0 = newValue } }
    }
}

/// An existential random source handed to an API that takes `some RandomSource`.
private struct ErasedRandomSource: RandomSource {
    let base: any RandomSource

    func nextUInt64() -> UInt64 { base.nextUInt64() }
}
