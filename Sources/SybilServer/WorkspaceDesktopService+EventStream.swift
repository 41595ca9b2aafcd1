import SybilCore
import SybilHTTP
import SybilWire

/// `GET /v1/workspaces/events`: how a stream starts (replay, reset or the current overlay),
/// how it follows live events at its client's pace, and how events are published.
extension WorkspaceDesktopService {
    /// `GET /v1/workspaces/events?desktopId&projectId&sessionId`.
    func eventStream(_ request: HTTPServerRequest) async throws -> HTTPServerResponse {
        var ids: [String] = []
        for name in ["desktopId", "projectId", "sessionId"] {
            guard let value = try request.queryValue(name), !value.isEmpty else {
                throw APIError.invalid("Query parameter '\(name)' is required.", param: name)
            }
            ids.append(value)
        }
        let chat = WorkspaceChatKey(desktopId: ids[0], projectId: ids[1], sessionId: ids[2])
        guard try await store.exists(chat) else { throw APIError.notFound("No session \(chat.sessionId).") }
        let lastEventID = try request.singleHeader("Last-Event-ID")
        // Read before the lock (it awaits): the chat's overlay when no stream has been told of
        // one since the server started.
        let stored = await store.liveState(chat).overlay
        // Subscribing, reading the ring and the overlay under the log's lock: every event is
        // either in the replay (or the overlay) or arrives live, never both, never neither.
        let (live, start, overlay) = log.withLock { log in
            let current = log.overlays[chat] ?? stored
            log.overlays[chat] = current
            return (
                fanOut.subscribe(chat), Self.replay(after: lastEventID, of: chat, in: log, boot: store.boot), current
            )
        }
        return .eventStream { [boot = store.boot, heartbeat = options.heartbeatInterval, time] stream in
            defer { live.cancel() }
            stream.writeComment("heartbeat")
            await withTaskGroup(of: Void.self) { group in
                group.addTask {
                    await Self.write(start, overlay: overlay, then: live, to: stream, boot: boot)
                }
                group.addTask {
                    while stream.isOpen {
                        do { try await time.sleep(heartbeat) } catch { return }
                        guard stream.writeComment("heartbeat") else { return }
                    }
                }
                await group.next()
                group.cancelAll()
            }
        }
    }

    /// Writes a stream's start (a replay, or a `reset` and the overlay, or the overlay), then
    /// its live events, each once the client has room for it: while it has none, its events
    /// wait in the fan-out, where overlays coalesce.
    private static func write(
        _ start: StreamStart, overlay: LiveOverlay, then live: WorkspaceEventFanOut.Subscription,
        to stream: HTTPResponseStream, boot: Int64
    ) async {
        var last = Int64.min
        switch start {
        case .replay(let events):
            for event in events {
                guard await stream.waitForRoom(),
                    stream.writeEvent(data: event.dataText, type: event.event.name, id: "\(boot).\(event.id)")
                else { return }
                last = event.id
            }
        case .reset(let reason, let newest):
            let event = WorkspaceEvent.reset(reason: reason)
            stream.writeEvent(data: event.dataText, type: event.name)
            // Its id is the newest event's so far: a reconnect with it replays what follows.
            stream.writeEvent(data: WorkspaceEvent.overlay(overlay).dataText, type: "overlay", id: "\(boot).\(newest)")
        case .fresh(let newest):
            stream.writeEvent(data: WorkspaceEvent.overlay(overlay).dataText, type: "overlay", id: "\(boot).\(newest)")
        }
        while await stream.waitForRoom(), let event = await live.next() {
            guard event.id > last else { continue }
            guard stream.writeEvent(data: event.dataText, type: event.event.name, id: "\(boot).\(event.id)")
            else { return }
        }
    }

    /// How a stream starts.
    enum StreamStart {
        /// `Last-Event-ID` is in the chat's ring: these later events, then live ones.
        case replay([Event])
        /// It is not: a `reset` with this reason, then the overlay with id `newest`.
        case reset(String, newest: Int64)
        /// No `Last-Event-ID`: the overlay with id `newest`.
        case fresh(newest: Int64)
    }

    static func replay(after lastEventID: String?, of chat: WorkspaceChatKey, in log: EventLog, boot: Int64)
        -> StreamStart
    {
        guard let lastEventID else { return .fresh(newest: log.newest) }
        let parts = lastEventID.utf8.count <= maximumLastEventIDBytes ? lastEventID.split(separator: ".") : []
        guard parts.count == 2, parts.allSatisfy({ $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }),
            let idBoot = Int64(parts[0]), let n = Int64(parts[1])
        else {
            return .reset("The Last-Event-ID is not an event id of this server; reload the chat.", newest: log.newest)
        }
        guard idBoot == boot, n <= log.newest else {
            return .reset("The server restarted since that event; reload the chat.", newest: log.newest)
        }
        let ring = log.rings[chat] ?? EventLog.Ring()
        guard n >= ring.dropped else {
            return .reset("Events after that one are no longer kept; reload the chat.", newest: log.newest)
        }
        return .replay(ring.events.filter { $0.id > n })
    }

    /// Numbers the event, keeps it in its chat's ring and hands it to the live streams, all
    /// under the log's lock so ring order, id order and delivery order agree. An overlay goes
    /// out as a delta from the chat's previous one when one can say it (the first of a chat, a
    /// new epoch or a delta that cannot be said go out whole); one no newer than the previous
    /// is old news and is not sent at all.
    func publish(_ chat: WorkspaceChatKey, _ workspaceEvent: WorkspaceEvent) {
        log.withLock { log in
            var sent = workspaceEvent
            if case .overlay(let overlay) = workspaceEvent {
                if let previous = log.overlays[chat] {
                    guard
                        (overlay.settlementEpoch, overlay.revision) > (previous.settlementEpoch, previous.revision)
                    else { return }
                    if let delta = LiveOverlayDelta(from: previous, to: overlay) { sent = .overlayDelta(delta) }
                }
                log.overlays[chat] = overlay
            }
            log.newest += 1
            let event = Event(chat: chat, id: log.newest, event: sent)
            var ring = log.rings[chat] ?? EventLog.Ring()
            ring.events.append(event)
            if ring.events.count > Self.eventRingCapacity { ring.dropped = ring.events.removeFirst().id }
            log.rings[chat] = ring
            fanOut.publish(event)
        }
    }
}
