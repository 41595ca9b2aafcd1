import Synchronization

/// What the transport holds for its clients right now, for tests and monitoring: the bytes
/// queued for sending, the most ever queued at once, the request bytes read and held, the
/// producers waiting for room, the heaviest WebSocket inbox seen, and the tasks and executor
/// threads running.
public struct TransportStatistics: Sendable, Hashable {
    /// Bytes queued in the server for all connections and not yet taken by the kernel.
    public var queuedOutputBytes: Int
    /// The largest ``queuedOutputBytes`` since the server started.
    public var peakQueuedOutputBytes: Int
    /// Request bytes read from all connections and held by the server right now: bodies being
    /// collected, requests read ahead and waiting for their turn, and what the parsers hold
    /// (a body a handler's consumer takes as it arrives is the consumer's to count).
    public var bufferedRequestBytes: Int
    /// The largest ``bufferedRequestBytes`` since the server started.
    public var peakBufferedRequestBytes: Int
    /// Stream producers and WebSocket sessions suspended in `waitForRoom()` right now.
    public var suspendedProducers: Int
    /// The heaviest any WebSocket inbox has been (payload bytes plus
    /// ``ServerWebSocket/messageOverhead`` per message) since the server started.
    public var peakInboxWeight: Int
    /// Request handlers, stream producers and WebSocket sessions started and not yet ended
    /// (each is cancelled when its connection closes).
    public var runningTasks = 0
    /// The server's executor threads running: two from start until the executor's owner stops
    /// it (``HTTPServer/shutdown(grace:)`` for an executor of its own, the caller's shutdown for
    /// one it was given), none after.
    public var executorThreads = 0

    /// The live counters behind the snapshot; updated from the loop and producer tasks.
    final class Counters: Sendable {
        private let queued = Atomic<Int>(0)
        private let peakQueued = Atomic<Int>(0)
        private let buffered = Atomic<Int>(0)
        private let peakBuffered = Atomic<Int>(0)
        private let suspended = Atomic<Int>(0)
        private let peakInbox = Atomic<Int>(0)

        /// The loop's total of queued output changed to `bytes`.
        func queuedOutput(_ bytes: Int) {
            queued.store(bytes, ordering: .relaxed)
            if bytes > peakQueued.load(ordering: .relaxed) { peakQueued.store(bytes, ordering: .relaxed) }
        }

        /// The loop's total of request bytes held changed to `bytes` (the loop thread only).
        func bufferedRequests(_ bytes: Int) {
            buffered.store(bytes, ordering: .relaxed)
            if bytes > peakBuffered.load(ordering: .relaxed) { peakBuffered.store(bytes, ordering: .relaxed) }
        }

        /// A WebSocket inbox weighs `weight` now (the loop thread only).
        func inbox(_ weight: Int) {
            if weight > peakInbox.load(ordering: .relaxed) { peakInbox.store(weight, ordering: .relaxed) }
        }

        func producerSuspended() { suspended.add(1, ordering: .relaxed) }

        func producerResumed() { suspended.subtract(1, ordering: .relaxed) }

        /// The current values.
        var snapshot: TransportStatistics {
            TransportStatistics(
                queuedOutputBytes: queued.load(ordering: .relaxed),
                peakQueuedOutputBytes: peakQueued.load(ordering: .relaxed),
                bufferedRequestBytes: buffered.load(ordering: .relaxed),
                peakBufferedRequestBytes: peakBuffered.load(ordering: .relaxed),
                suspendedProducers: suspended.load(ordering: .relaxed),
                peakInboxWeight: peakInbox.load(ordering: .relaxed))
        }
    }
}
