import SybilCore
import SybilWire

/// Hands each chat's live events to its subscribers (the `GET /v1/workspaces/events`
/// streams) with the memory they hold bounded per subscriber and in total. A subscriber takes
/// its next event when its client has room; what waits meanwhile is its queue:
///
/// - Overlays coalesce: a new overlay replaces the overlays at the queue's tail (a delta
///   joins the delta before it into one), so a slow client gets only the newest state. Only
///   the tail is merged, so no overlay moves ahead of an event it came after, and the merged
///   overlay keeps the newest id.
/// - Other events keep their order and are never dropped silently: past
///   ``subscriberEventLimit`` events or ``subscriberByteLimit`` bytes a subscriber takes no
///   more and ends after what it has. Its client reconnects with `Last-Event-ID` and replays
///   the rest (or gets the documented `reset`).
/// - Past ``totalByteLimit`` bytes across every subscriber, the one holding the most is
///   ended at once and its queue freed, until the total fits.
///
/// Bytes are counted as each queued event's data would be sent, as if no two subscribers
/// shared it.
final class WorkspaceEventFanOut: Sendable {
    typealias Event = WorkspaceDesktopService.Event

    /// The bytes of event data all slow subscribers of a server may hold together.
    static let totalByteLimit = 64 << 20
    /// The bytes one subscriber may hold.
    static let subscriberByteLimit = 16 << 20
    /// The events one subscriber may hold.
    static let subscriberEventLimit = 1024

    struct Queue {
        var chat: WorkspaceChatKey
        var events: [Event] = []
        var bytes = 0
        /// Takes nothing more; its stream ends once `events` are taken.
        var finished = false
        var waiter: CheckedContinuation<Event?, Never>?
    }

    struct State {
        var queues: [UInt64: Queue] = [:]
        var byChat: [WorkspaceChatKey: Set<UInt64>] = [:]
        var bytes = 0
        /// The most `bytes` has been once a publish had applied the bounds.
        var peakBytes = 0
        var nextID: UInt64 = 0
    }

    private let state = Locked(State())
    let totalLimit: Int
    let subscriberBytes: Int
    let subscriberEvents: Int

    init(
        totalLimit: Int = totalByteLimit, subscriberBytes: Int = subscriberByteLimit,
        subscriberEvents: Int = subscriberEventLimit
    ) {
        self.totalLimit = totalLimit
        self.subscriberBytes = subscriberBytes
        self.subscriberEvents = subscriberEvents
    }

    /// Bytes of event data held for all subscribers now.
    var heldBytes: Int { state.withLock { $0.bytes } }
    /// The most bytes held at once so far (measured after each publish's bounds applied).
    var peakHeldBytes: Int { state.withLock { $0.peakBytes } }
    /// Subscribers not yet ended or cancelled.
    var subscriberCount: Int { state.withLock { $0.queues.values.count { !$0.finished } } }

    /// A subscription to every event of `chat` published from now on.
    func subscribe(_ chat: WorkspaceChatKey) -> Subscription {
        let id = state.withLock { state in
            state.nextID += 1
            state.queues[state.nextID] = Queue(chat: chat)
            state.byChat[chat, default: []].insert(state.nextID)
            return state.nextID
        }
        return Subscription(id: id, fanOut: self)
    }

    /// One subscriber's end: ``next()`` until `nil`; ``cancel()`` (or letting it go) ends it.
    final class Subscription: Sendable {
        let id: UInt64
        let fanOut: WorkspaceEventFanOut

        init(id: UInt64, fanOut: WorkspaceEventFanOut) {
            self.id = id
            self.fanOut = fanOut
        }

        deinit { fanOut.remove(id) }

        /// The oldest waiting event, suspending until there is one; `nil` once the
        /// subscriber has ended or the task is cancelled.
        func next() async -> Event? {
            await fanOut.next(id)
        }

        /// Ends the subscription and frees what it holds.
        func cancel() {
            fanOut.remove(id)
        }
    }

    /// Queues `event` for every subscriber of its chat; whenever that puts the total over its
    /// limit, the largest holders are ended.
    func publish(_ event: Event) {
        let size = event.size
        var resumed: [(CheckedContinuation<Event?, Never>, Event?)] = []
        state.withLock { state in
            for id in state.byChat[event.chat] ?? [] {
                guard var queue = state.queues[id], !queue.finished else { continue }
                if let waiter = queue.waiter {
                    // It was waiting: the event goes straight to it, held nowhere.
                    queue.waiter = nil
                    resumed.append((waiter, event))
                } else {
                    let before = queue.bytes
                    enqueue(event, size: size, into: &queue)
                    state.bytes += queue.bytes - before
                }
                state.queues[id] = queue
                endLargest(&state, resuming: &resumed)
            }
            state.peakBytes = max(state.peakBytes, state.bytes)
        }
        for (waiter, value) in resumed { waiter.resume(returning: value) }
    }

    /// Ends the subscribers holding the most, freeing their queues, until the total fits.
    private func endLargest(
        _ state: inout State, resuming resumed: inout [(CheckedContinuation<Event?, Never>, Event?)]
    ) {
        while state.bytes > totalLimit, let largest = state.queues.max(by: { $0.value.bytes < $1.value.bytes }),
            largest.value.bytes > 0
        {
            state.bytes -= largest.value.bytes
            var queue = largest.value
            queue.events = []
            queue.bytes = 0
            queue.finished = true
            if let waiter = queue.waiter {
                queue.waiter = nil
                resumed.append((waiter, nil))
            }
            state.queues[largest.key] = queue
        }
    }

    /// Adds `event` to `queue`, merging an overlay into the overlays at its tail; a queue
    /// over its bounds finishes instead (a lone event always fits, so one larger than the
    /// bound still reaches a client that keeps up).
    private func enqueue(_ event: Event, size: Int, into queue: inout Queue) {
        switch event.event {
        case .overlay:
            while let last = queue.events.last, last.isOverlay {
                queue.bytes -= last.size
                queue.events.removeLast()
            }
        case .overlayDelta(let delta):
            if let last = queue.events.last, case .overlayDelta(let earlier) = last.event,
                let joined = earlier.followed(by: delta)
            {
                let merged = event.replacingDelta(joined, joining: last)
                queue.bytes += merged.size - last.size
                queue.events[queue.events.count - 1] = merged
                return
            }
        default:
            break
        }
        if !queue.events.isEmpty,
            queue.events.count + 1 > subscriberEvents || queue.bytes + size > subscriberBytes
        {
            queue.finished = true
            return
        }
        queue.events.append(event)
        queue.bytes += size
    }

    private func next(_ id: UInt64) async -> Event? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Event?, Never>) in
                let answer: Event?? = state.withLock { state in
                    guard var queue = state.queues[id] else { return .some(nil) }
                    if !queue.events.isEmpty {
                        let event = queue.events.removeFirst()
                        queue.bytes -= event.size
                        state.bytes -= event.size
                        state.queues[id] = queue
                        return .some(event)
                    }
                    if queue.finished || Task.isCancelled {
                        Self.remove(id, from: &state)
                        return .some(nil)
                    }
                    queue.waiter = continuation
                    state.queues[id] = queue
                    return nil
                }
                if let answer { continuation.resume(returning: answer) }
            }
        } onCancel: {
            remove(id)
        }
    }

    fileprivate func remove(_ id: UInt64) {
        let waiter = state.withLock { state in
            let waiter = state.queues[id]?.waiter
            Self.remove(id, from: &state)
            return waiter
        }
        waiter?.resume(returning: nil)
    }

    private static func remove(_ id: UInt64, from state: inout State) {
        guard let queue = state.queues.removeValue(forKey: id) else { return }
        state.bytes -= queue.bytes
        state.byChat[queue.chat]?.remove(id)
        if state.byChat[queue.chat]?.isEmpty == true { state.byChat[queue.chat] = nil }
    }
}
