#if canImport(Glibc) && canImport(COpenSSL)
    // CEpoll as the listener imports it: in a whole-module build the socket constants
    // (SOCK_STREAM, MSG_NOSIGNAL) are found through it, not through Glibc alone.
    import CEpoll
    import COpenSSL
    import Foundation
    import Glibc
    import SybilCore
    import Synchronization

    /// A TCP connection, optionally TLS (OpenSSL, with certificate and host-name checks), run
    /// by one I/O thread that polls the socket and a wake pipe: received bytes wait in a
    /// bounded inbox for ``receive()``; ``write(_:)`` queues bytes and wakes the thread (on
    /// plain TCP, when nothing is queued or being sent, the writer sends them itself first).
    /// With TLS one thread does all reads and writes, so an OpenSSL session is never used from
    /// two threads at once.
    ///
    /// Backpressure: once the inbox holds ``inboxLimit`` bytes the thread stops reading until
    /// the consumer has taken it down to ``resumeLevel``, so a peer that sends faster than its
    /// bytes are used is slowed by TCP instead of filling memory, and a paused socket is read
    /// again in large reads rather than one small read per take. The most a connection holds
    /// for its consumer is ``inboxLimit`` plus one read (``readSize``).
    ///
    /// The wake pipe is written only while the I/O thread waits (or is about to wait) in
    /// `poll`, outside the connection's lock, so a woken thread does not at once wait for the
    /// waker to let go of it; the pipe stays open until the connection is released, so such a
    /// write never reaches a descriptor that now belongs to another file.
    ///
    /// The I/O thread is also a task executor: a task that prefers it runs its jobs between
    /// the thread's polls, so a consumer waiting in ``receive()`` there is resumed by the very
    /// thread that read its bytes, with no other thread woken (one wake-up per answer, as a
    /// blocking read has). Such a task must not block. Once the thread has ended, jobs go to
    /// the global concurrent executor. Such a consumer may also read the socket itself, straight
    /// into its own memory (``receiveDirect(into:)``: a large payload whose size it knows), and
    /// once it is handed a read the thread does not read ahead of it.
    final class SocketConnection: TaskExecutor, Sendable {
        /// Bytes read from the socket at a time.
        static let readSize = 64 * 1024
        /// Received bytes the inbox holds before reading pauses.
        static let inboxLimit = 256 * 1024
        /// Received bytes the inbox is drained to before a paused socket is read again.
        static let resumeLevel = inboxLimit / 2
        /// Received chunks the inbox holds before reading pauses (reading resumes at half): each
        /// costs about 64 bytes beyond its bytes, so 4,096 of them cost about what ``inboxLimit``
        /// bounds, however small the peer's segments (see ``SocketInbox``).
        static let inboxChunkLimit = 4096

        private let descriptor: Int32
        private let wake: (read: Int32, write: Int32)
        private let tls: TLSSession?
        private let state = Locked(State())
        /// The I/O thread waits, or is about to wait, in `poll` with no time limit: a change
        /// it must notice wakes it through the pipe. Set under the state lock just before the
        /// thread polls; a waker clears it under the lock when it makes its change, and writes
        /// the pipe (after letting go of the lock) only if it was set, so one byte is written
        /// per wait, however many wakers. The thread clears it when `poll` returns.
        private let polling = Atomic<Bool>(false)
        /// The I/O thread (`pthread_self()`), 0 until it starts: ``receiveDirect(into:)`` reads
        /// only there.
        private let ioThread = Atomic<UInt>(0)
        /// ``receiveDirect(into:)`` found nothing and its caller is about to wait: when the
        /// socket becomes readable, the I/O thread resumes it with no bytes instead of reading,
        /// so the caller, resumed next on that thread, reads them straight into its own memory.
        /// Only the I/O thread touches it.
        private let directWanted = Atomic<Bool>(false)

        private struct State {
            /// Chunks queued for sending, in order (sent with one gathered write).
            var outbound: [[UInt8]] = []
            /// Bytes of `outbound[0]` already sent (by a writer that sent the rest itself).
            var outboundOffset = 0
            var closing = false
            /// The I/O thread ended and closed the descriptors: nothing may touch them again
            /// (their numbers may already belong to other files).
            var finished = false
            /// Received bytes not yet taken; while it is paused (full) the socket is not read.
            var inbox = SocketInbox(limit: inboxLimit, resumeLevel: resumeLevel, chunkLimit: inboxChunkLimit)
            /// The consumer waiting in ``receive()``.
            var waiter: CheckedContinuation<[UInt8]?, any Error>?
            /// The waiter waits on the I/O thread (a task on this executor), on plain TCP: once it
            /// is handed a read, the thread stops reading ahead and resumes it first. Over TLS the
            /// thread keeps reading, since the session may hold decrypted bytes `poll` cannot see.
            var waiterOnIOThread = false
            /// How the received stream ended: cleanly (`nil` error) or with a failure; set once.
            var end: (any Error)??
            /// Bytes handed to the socket so far.
            var sentBytes = 0
            /// The I/O thread holds chunks it has not finished sending: a writer must queue
            /// behind them instead of sending itself.
            var threadSending = false
            /// A writer is sending from its own thread (see ``write(gathering:)``).
            var writerSending = false
            /// The I/O thread ended while a writer was sending: the writer closes the descriptors.
            var closeDeferred = false
            /// Jobs of tasks that prefer this connection as their executor, run by the I/O
            /// thread before it next polls.
            var jobs: [UnownedJob] = []
            /// A read of ``receiveDirect(into:)`` failed: the I/O thread ends the stream with it.
            var directFailure: (any Error)?
        }

        private init(descriptor: Int32, tls: TLSSession?) throws(SocketError) {
            var pipeEnds: [Int32] = [0, 0]
            guard pipe(&pipeEnds) == 0 else { throw SocketError("cannot create a wake pipe", errno) }
            self.descriptor = descriptor
            self.tls = tls
            wake = (pipeEnds[0], pipeEnds[1])
            _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
            _ = fcntl(wake.read, F_SETFL, fcntl(wake.read, F_GETFL) | O_NONBLOCK)
            _ = fcntl(wake.write, F_SETFL, fcntl(wake.write, F_GETFL) | O_NONBLOCK)
        }

        deinit {
            // Only now: a waker may write the pipe outside the lock until its last call returns.
            Glibc.close(wake.read)
            Glibc.close(wake.write)
        }

        /// Connects to `host:port` (TLS when `tls`), on a thread of its own so no task blocks.
        static func connect(
            host: String, port: Int, tls: Bool, trustedCertificatesFile: String? = nil
        ) async throws -> SocketConnection {
            // The outcome crosses from the connecting thread under a lock whose turns
            // ThreadSanitizer sees; it cannot see the continuation's own hand-off when a
            // Foundation thread resumes it, and would report the connection's fields as raced.
            let outcome = Locked<Result<SocketConnection, any Error>?>(nil)
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let thread = Thread {
                    let result = Result { () throws -> SocketConnection in
                        let descriptor = try openTCP(host: host, port: port)
                        var session: TLSSession?
                        let connection: SocketConnection
                        do {
                            if tls {
                                session = try TLSSession(
                                    descriptor: descriptor, host: host, trustedCertificatesFile: trustedCertificatesFile
                                )
                            }
                            // No wake pipe (out of descriptors): the socket and session go too.
                            connection = try SocketConnection(descriptor: descriptor, tls: session)
                        } catch {
                            session?.close()
                            close(descriptor)
                            throw error
                        }
                        connection.start()
                        return connection
                    }
                    outcome.withLock { $0 = result }
                    continuation.resume()
                }
                thread.start()
            }
            guard let result = outcome.withLock({ $0 }) else {
                throw SocketError("the connecting thread ended without an outcome", 0)
            }
            return try result.get()
        }

        /// Queues `bytes` for sending.
        func write(_ bytes: [UInt8]) {
            write(gathering: [bytes])
        }

        /// Queues `chunks` for sending one after the other, with nothing between them (a frame's
        /// header and payload): they are sent with gathered writes, never joined into one buffer.
        ///
        /// When nothing is queued or being sent (and the connection is plain TCP), the caller's
        /// thread sends them itself with one non-blocking gathered write, outside the lock, and
        /// only what the socket did not take is queued for the I/O thread (ahead of anything
        /// queued meanwhile): a small message leaves without waking the thread.
        func write(gathering chunks: [[UInt8]]) {
            let (direct, wakeQueued) = state.withLock { state -> (Bool, Bool) in
                if tls == nil, !state.finished, !state.closing, !state.threadSending, !state.writerSending,
                    state.outbound.isEmpty
                {
                    // The claim keeps the descriptor open and the I/O thread off `outbound`
                    // until this send is over, so the bytes keep their order.
                    state.writerSending = true
                    return (true, false)
                }
                for chunk in chunks where !chunk.isEmpty {
                    if state.outbound.isEmpty { state.outboundOffset = 0 }
                    state.outbound.append(chunk)
                }
                return (false, claimWake())
            }
            guard direct else {
                if wakeQueued { wakeIOThread() }
                return
            }
            // A failed send leaves everything queued: the I/O thread meets the failure.
            let total = (try? send(chunks[...], from: 0)) ?? 0
            var count = total
            var skip = 0
            while skip < chunks.count, count >= chunks[skip].count {
                count -= chunks[skip].count
                skip += 1
            }
            let (wakeThread, closeNow) = state.withLock { state -> (Bool, Bool) in
                state.sentBytes += total
                state.writerSending = false
                let rest = chunks[skip...].filter { !$0.isEmpty }
                if !rest.isEmpty {
                    state.outbound.insert(contentsOf: rest, at: 0)
                    state.outboundOffset = count
                }
                // The I/O thread polled without the socket while this send held it.
                return ((!state.outbound.isEmpty || state.closing) && claimWake(), state.closeDeferred)
            }
            if closeNow {
                closeDescriptors()
            } else if wakeThread {
                wakeIOThread()
            }
        }

        /// Queues `job` for the I/O thread (woken when it waits in `poll`); once the thread has
        /// ended, hands it to the global concurrent executor.
        func enqueue(_ job: consuming ExecutorJob) {
            let job = UnownedJob(job)
            let (queued, wakeThread) = state.withLock { state -> (Bool, Bool) in
                guard !state.finished else { return (false, false) }
                state.jobs.append(job)
                return (true, claimWake())
            }
            if wakeThread { wakeIOThread() }
            if !queued { globalConcurrentExecutor.enqueue(ExecutorJob(job)) }
        }

        /// Sends what is queued, then closes; reading stops at once.
        func shutdown() {
            let wakeThread = state.withLock { state -> Bool in
                state.closing = true
                return claimWake()
            }
            if wakeThread { wakeIOThread() }
        }

        /// The next received bytes, in order; `nil` once the peer closed (after every byte
        /// received before it); throws when the connection failed or the waiting task was
        /// cancelled (which closes the connection). Empty only for a caller whose
        /// ``receiveDirect(into:)`` found nothing just before it waited: the socket has become
        /// readable, and the caller reads the bytes itself.
        ///
        /// Runs on its caller's executor (`nonisolated(nonsending)`): a consumer on the I/O
        /// thread does not switch to the generic executor and back around each call, and each
        /// such switch asks the runtime for the task's preferred executor under a lock.
        nonisolated(nonsending) func receive() async throws -> [UInt8]? {
            let (ready, wakeThread) = try state.withLock { state throws -> ([UInt8]??, Bool) in
                guard let ready = try Self.take(&state) else { return (nil, false) }
                return (ready, resumeReadingIfDrained(&state))
            }
            if wakeThread { wakeIOThread() }
            if let ready { return ready }
            return try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<[UInt8]?, any Error>) in
                    let (outcome, wakeThread) = state.withLock { state -> (Result<[UInt8]?, any Error>?, Bool) in
                        do {
                            if let ready = try Self.take(&state) {
                                return (.success(ready), resumeReadingIfDrained(&state))
                            }
                        } catch {
                            return (.failure(error), false)
                        }
                        if Task.isCancelled { return (.failure(CancellationError()), false) }
                        precondition(state.waiter == nil, "two tasks wait on one socket connection")
                        state.waiter = continuation
                        // Plain TCP only: TLS may hold decrypted bytes `poll` cannot see, so its
                        // thread keeps reading until the socket would block.
                        state.waiterOnIOThread = tls == nil && UInt(pthread_self()) == ioThread.load(ordering: .relaxed)
                        return (nil, false)
                    }
                    if wakeThread { wakeIOThread() }
                    if let outcome { continuation.resume(with: outcome) }
                }
            } onCancel: {
                let waiter = state.withLock { state in
                    defer { state.waiter = nil }
                    return state.waiter
                }
                if let waiter {
                    waiter.resume(throwing: CancellationError())
                    shutdown()
                }
            }
        }

        /// Reads the socket straight into `target`, never waiting: the bytes ``receive()`` would
        /// return next, without the copy out of a read buffer. Only on plain TCP, on the
        /// connection's own I/O thread (a task running on this executor, between the thread's
        /// polls, so no read of the thread's can come between), while the inbox is empty and the
        /// stream neither ended nor is closing. Returns how many bytes it read, or `nil` when none were
        /// (none there now, or not allowed here); the end of the stream and a failure are left
        /// for ``receive()`` to report. What it reads is bounded by `target`, never queued.
        func receiveDirect(into target: UnsafeMutableRawBufferPointer) -> Int? {
            guard tls == nil, let base = target.baseAddress, !target.isEmpty,
                UInt(pthread_self()) == ioThread.load(ordering: .relaxed)
            else { return nil }
            let allowed = state.withLock { state in
                !state.finished && !state.closing && state.end == nil && state.directFailure == nil
                    && state.inbox.isEmpty && state.waiter == nil
            }
            guard allowed else { return nil }
            let count = recv(descriptor, base, target.count, Int32(MSG_DONTWAIT))
            if count > 0 { return count }
            // 0: the peer closed; the thread's next poll and read meet that again.
            if count < 0, errno != EAGAIN, errno != EWOULDBLOCK, errno != EINTR {
                let failure = SocketError("receive failed", errno)
                state.withLock { $0.directFailure = failure }  // read by the thread before it polls
            } else if count < 0 {
                directWanted.store(true, ordering: .relaxed)
            }
            return nil
        }

        /// The chunks already waiting in the inbox, oldest first, taken while fewer than `limit`
        /// bytes have been (so at most `limit - 1` plus one chunk); empty when none wait. Never
        /// waits, and leaves the end of the stream or a failure for ``receive()`` to report.
        /// One turn of the lock, however many chunks.
        func takeReceived(whileUnder limit: Int) -> [[UInt8]] {
            let (taken, wakeThread) = state.withLock { state -> ([[UInt8]], Bool) in
                var taken: [[UInt8]] = []
                var bytes = 0
                while bytes < limit, let chunk = state.inbox.take() {
                    bytes += chunk.count
                    taken.append(chunk)
                }
                return (taken, !taken.isEmpty && resumeReadingIfDrained(&state))
            }
            if wakeThread { wakeIOThread() }
            return taken
        }

        /// Bytes the inbox holds now (what backpressure bounds).
        var bufferedBytes: Int {
            state.withLock { $0.inbox.bytes }
        }

        /// Bytes handed to the socket (or the TLS session) since the connection opened: when it
        /// has not grown since a request was queued, none of that request left this process.
        var sentBytes: Int {
            state.withLock { $0.sentBytes }
        }

        /// Whether another request may be written: the connection is open both ways, is not
        /// closing, and holds no unread bytes (a peer that sent something unasked is not trusted
        /// with the next request). The socket itself is asked too, so a peer's close that the
        /// kernel already holds counts even before the I/O thread has read it (a server that
        /// closes right after its answer without `Connection: close`).
        var isIdleAndOpen: Bool {
            state.withLock { state in
                guard
                    !state.closing && !state.finished && state.end == nil && state.inbox.isEmpty
                        && state.waiter == nil
                else { return false }
                // Under the lock the descriptor is still this connection's (`finished` is false).
                var probe = pollfd(fd: descriptor, events: Self.peerClosedEvent, revents: 0)
                guard poll(&probe, 1, 0) >= 0 else { return false }
                return probe.revents & (Self.peerClosedEvent | Int16(POLLHUP) | Int16(POLLERR)) == 0
            }
        }

        /// `POLLRDHUP` (Linux): the peer shut down its sending side. Spelled out because Glibc's
        /// module leaves out this GNU extension.
        private static let peerClosedEvent: Int16 = 0x2000

        /// Whether the I/O thread has ended (jobs queued from now on run on the global executor).
        var hasEnded: Bool {
            state.withLock { $0.finished }
        }

        /// Whether reading stopped because the inbox is full.
        var isReadingPaused: Bool {
            state.withLock { $0.inbox.isPaused }
        }

        /// The oldest chunk, `.some(nil)` at a clean end, `nil` when nothing is there yet.
        private static func take(_ state: inout State) throws -> [UInt8]?? {
            if let chunk = state.inbox.take() { return .some(chunk) }
            switch state.end {
            case .none: return nil
            case .some(.none): return .some(nil)
            case .some(.some(let error)): throw error
            }
        }

        /// Under the lock, after a take: resumes reading paused on a full inbox once the inbox
        /// is drained to ``resumeLevel``; returns whether the I/O thread must be woken for it.
        private func resumeReadingIfDrained(_ state: inout State) -> Bool {
            guard state.inbox.resumeIfDrained() else { return false }
            return claimWake()
        }

        /// Hands the first `count` bytes of `buffer`, just read, to the waiting consumer or keeps
        /// them in the inbox; returns whether reading stops (the inbox is full, the connection
        /// is closing, or the bytes went to a waiter on this thread, which then runs before the
        /// thread reads ahead). A read that fills at least half the buffer, or one a consumer
        /// waits for, is handed on as the buffer itself (a new one is taken); a smaller one kept
        /// in the inbox is copied out (outside the lock), so every chunk held is at least half
        /// full or counts against the inbox's bound on chunks (see ``SocketInbox``). One turn of
        /// the lock, or two for a small read nobody waits for.
        private func deliver(_ buffer: inout [UInt8], count: Int) -> Bool {
            typealias Waiter = CheckedContinuation<[UInt8]?, any Error>
            let whole = count >= Self.readSize / 2
            var chunk: [UInt8] = []
            if whole { chunk = Self.handOver(&buffer, count: count) }
            let (waiter, stop) = state.withLock { state -> (Waiter?, Bool?) in
                if let waiter = state.waiter {
                    state.waiter = nil
                    return (waiter, state.closing || state.waiterOnIOThread)
                }
                guard whole else { return (nil, nil) }
                return (nil, state.inbox.keep(chunk) || state.closing)
            }
            if let waiter {
                waiter.resume(returning: whole ? chunk : Self.handOver(&buffer, count: count))
                return stop ?? false
            }
            if let stop { return stop }
            // A small read nobody waited for: copied, then kept (or handed to a consumer that
            // began to wait meanwhile; the inbox was empty when it did).
            chunk = Array(buffer[0..<count])
            let (late, stopLate) = state.withLock { state -> (Waiter?, Bool) in
                if let waiter = state.waiter {
                    state.waiter = nil
                    return (waiter, state.closing || state.waiterOnIOThread)
                }
                return (nil, state.inbox.keep(chunk) || state.closing)
            }
            late?.resume(returning: chunk)
            return stopLate
        }

        /// The first `count` bytes of `buffer` as an array of their own, without copying them:
        /// `buffer` becomes a new read buffer.
        private static func handOver(_ buffer: inout [UInt8], count: Int) -> [UInt8] {
            buffer.removeLast(buffer.count - count)
            defer { buffer = readBuffer() }
            return buffer
        }

        /// Ends the received stream (`nil`: cleanly); the waiting consumer learns at once,
        /// a later one after the bytes still in the inbox.
        private func endInbound(_ failure: (any Error)?) {
            let waiter = state.withLock { state -> CheckedContinuation<[UInt8]?, any Error>? in
                guard state.end == nil else { return nil }
                state.end = .some(failure)
                defer { state.waiter = nil }
                return state.waiter
            }
            if let failure { waiter?.resume(throwing: failure) } else { waiter?.resume(returning: nil) }
        }

        /// Under the state lock, with a change the I/O thread must notice just made: whether
        /// the caller is to wake it (it waits in `poll`, and no other waker claimed that wait).
        private func claimWake() -> Bool {
            polling.exchange(false, ordering: .sequentiallyConsistent)
        }

        /// Wakes the I/O thread, after ``claimWake()`` and outside the lock. The pipe is open
        /// until the connection is released (a full pipe means a wake-up is already pending).
        private func wakeIOThread() {
            var byte: UInt8 = 1
            _ = Glibc.write(wake.write, &byte, 1)
        }

        private func start() {
            let thread = Thread { [self] in run() }
            thread.start()
        }

        private func run() {
            // A task on this connection's executor finds it by this name.
            ThreadName.setCurrent("sybil-socket")
            ioThread.store(UInt(pthread_self()), ordering: .relaxed)
            // Reads go into `buffer`, reused while reads are small and kept (the bytes are
            // copied out); a read that fills at least half of it, or one a consumer waits for,
            // is handed on as it is and a new buffer taken, so large transfers and answers are
            // not copied and every chunk held is at least half full or counted against the
            // inbox's bound on chunks (`SocketInbox`), so its bound holds for memory too.
            var buffer = Self.readBuffer()
            // Chunks to send are `pending[first...]`, the first from `sent`; partial sends move
            // the offsets, so queued bytes are never copied or shifted.
            var pending: [[UInt8]] = []
            var first = 0
            var sent = 0
            var failure: (any Error)?
            var jobs: [UnownedJob] = []
            loop: while true {
                // Jobs queued before this turn (those they queue run on the next one, after a
                // poll that does not wait).
                state.withLock { swap(&jobs, &$0.jobs) }
                for job in jobs { job.runSynchronously(on: asUnownedTaskExecutor()) }
                jobs.removeAll(keepingCapacity: true)
                let (closing, paused, writing, idle, directFailure) = state.withLock {
                    state -> (Bool, Bool, Bool, Bool, (any Error)?) in
                    if state.writerSending {
                        // A writer is sending; what was queued meanwhile waits for its rest.
                    } else if first == pending.count {
                        pending = []
                        swap(&pending, &state.outbound)
                        first = 0
                        sent = state.outboundOffset
                    } else if !state.outbound.isEmpty {
                        pending.append(contentsOf: state.outbound)
                        state.outbound.removeAll()
                    }
                    state.outboundOffset = 0
                    state.threadSending = first < pending.count
                    let idle = state.jobs.isEmpty
                    polling.store(idle, ordering: .sequentiallyConsistent)
                    return (state.closing, state.inbox.isPaused, state.writerSending, idle, state.directFailure)
                }
                if let directFailure {
                    failure = directFailure
                    break
                }
                let hasPending = first < pending.count
                // A writer still sending queues its rest and wakes this thread when it is done.
                if closing && !hasPending && !writing { break }
                // Closing or full: the socket is not read (a closing connection only sends).
                let reading = !closing && !paused
                // A socket neither read nor written is left out of the poll: its hang-up or error
                // would otherwise be reported at once, again and again, while reading is paused.
                var fds = [
                    pollfd(
                        fd: reading || hasPending ? descriptor : -1,
                        events: (reading ? Int16(POLLIN) : 0) | (hasPending ? Int16(POLLOUT) : 0), revents: 0),
                    pollfd(fd: wake.read, events: Int16(POLLIN), revents: 0),
                ]
                let ready = poll(&fds, 2, idle ? -1 : 0)
                // Set under the lock before the poll, so clearing it here hides no change: a
                // waker that finds it clear made its change after this turn's look at the state
                // (under the same lock), and the next turn sees it.
                if idle { polling.store(false, ordering: .sequentiallyConsistent) }
                if ready < 0 {
                    if errno == EINTR { continue }
                    failure = SocketError("poll failed", errno)
                    break
                }
                if fds[1].revents != 0 {
                    var drain = [UInt8](repeating: 0, count: 64)
                    while Glibc.read(wake.read, &drain, drain.count) > 0 {}
                }
                if fds[0].revents & Int16(POLLOUT) != 0, hasPending {
                    do {
                        var count = try send(pending[first...], from: sent)
                        let total = count
                        while count > 0 {
                            let left = pending[first].count - sent
                            if count < left {
                                sent += count
                                break
                            }
                            count -= left
                            pending[first] = []
                            first += 1
                            sent = 0
                        }
                        if total > 0 {
                            let drained = first == pending.count
                            state.withLock { state in
                                state.sentBytes += total
                                // Writers may send themselves again once nothing is held here
                                // (what they queued meanwhile is in `outbound`, sent first).
                                if drained { state.threadSending = false }
                            }
                        }
                    } catch {
                        failure = error
                        break
                    }
                }
                let readable = fds[0].revents & (Int16(POLLIN) | Int16(POLLHUP) | Int16(POLLERR)) != 0
                if reading, readable, directWanted.exchange(false, ordering: .relaxed),
                    let waiter = state.withLock({ state -> CheckedContinuation<[UInt8]?, any Error>? in
                        // Only a waiter on this thread asked to read for itself; any other (or
                        // none: the asker went away) gets the bytes read here as usual.
                        guard state.waiterOnIOThread, let waiter = state.waiter else { return nil }
                        state.waiter = nil
                        return waiter
                    })
                {
                    // The waiter reads for itself (see `receiveDirect(into:)`): it is resumed
                    // with no bytes and reads them on this thread next turn.
                    waiter.resume(returning: [])
                } else if reading, readable {
                    // Reads until the socket would block (or a short read emptied it), the
                    // inbox is full or the connection is closing: a peer that never pauses cannot keep this loop
                    // from noticing either.
                    while true {
                        let result: Int
                        do {
                            result = try receive(into: &buffer)
                        } catch {
                            failure = error
                            break loop
                        }
                        if result == 0 { break loop }  // peer closed
                        if result < 0 { break }  // would block
                        if deliver(&buffer, count: result) { break }
                        // A short read on plain TCP took everything the socket held: the next
                        // poll says when more comes (TLS may hold decrypted bytes poll cannot see).
                        if tls == nil, result < Self.readSize { break }
                    }
                }
            }
            endInbound(failure)
            let closeNow = state.withLock { state -> Bool in
                state.finished = true
                polling.store(false, ordering: .sequentiallyConsistent)
                swap(&jobs, &state.jobs)
                state.closeDeferred = state.writerSending
                return !state.writerSending
            }
            if closeNow { closeDescriptors() }
            // Jobs queued before the end still run here; later ones go to the global executor.
            for job in jobs { job.runSynchronously(on: asUnownedTaskExecutor()) }
        }

        /// Closes the TLS session and the socket: once, after `finished` is set and no writer is
        /// sending, so nothing touches them again (the wake pipe is closed on release).
        private func closeDescriptors() {
            tls?.close()
            Glibc.shutdown(descriptor, Int32(SHUT_RDWR))
            Glibc.close(descriptor)
        }

        /// A read buffer of ``readSize`` bytes, not zeroed (every byte is written by a read
        /// before it is handed on).
        private static func readBuffer() -> [UInt8] {
            [UInt8](unsafeUninitializedCapacity: readSize) { _, count in count = readSize }
        }

        /// Bytes sent from `chunks`, the first from `offset` (0 when the socket would block):
        /// one gathered write of up to 64 chunks, or (TLS) the first chunk's rest.
        private func send(_ chunks: ArraySlice<[UInt8]>, from offset: Int) throws -> Int {
            guard let head = chunks.first else { return 0 }
            if let tls { return try tls.write(head[offset...]) }
            let gathered = chunks.prefix(64)
            var vectors: [iovec] = []
            vectors.reserveCapacity(gathered.count)
            // Native arrays keep their storage in place while nothing mutates them; `chunks`
            // is held (and not mutated) until `sendmsg` returns, which the extended lifetime
            // below makes explicit. An empty chunk (no storage to point at) is left out.
            for (index, chunk) in zip(gathered.indices, gathered) {
                let skip = index == gathered.startIndex ? offset : 0
                guard chunk.count > skip else { continue }
                chunk.withUnsafeBytes { raw in
                    guard let base = raw.baseAddress else { return }
                    vectors.append(
                        iovec(iov_base: UnsafeMutableRawPointer(mutating: base + skip), iov_len: raw.count - skip))
                }
            }
            guard !vectors.isEmpty else { return 0 }
            var message = msghdr()
            let sent = withExtendedLifetime(chunks) {
                vectors.withUnsafeMutableBufferPointer { vectors in
                    message.msg_iov = vectors.baseAddress
                    message.msg_iovlen = vectors.count
                    return sendmsg(descriptor, &message, Int32(MSG_NOSIGNAL))
                }
            }
            if sent < 0 {
                if errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR { return 0 }
                throw SocketError("send failed", errno)
            }
            return sent
        }

        /// Bytes received, 0 at the end of the stream, -1 when nothing is available now.
        private func receive(into buffer: inout [UInt8]) throws -> Int {
            if let tls { return try tls.read(into: &buffer) }
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count < 0 {
                if errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR { return -1 }
                throw SocketError("receive failed", errno)
            }
            return count
        }

        private static func openTCP(host: String, port: Int) throws -> Int32 {
            var hints = addrinfo()
            hints.ai_family = AF_UNSPEC
            hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
            var list: UnsafeMutablePointer<addrinfo>?
            let status = getaddrinfo(host, String(port), &hints, &list)
            guard status == 0, let first = list else {
                throw SocketError("cannot resolve \(host): \(String(cString: gai_strerror(status)))", 0)
            }
            defer { freeaddrinfo(list) }
            var lastError: Int32 = 0
            var entry: UnsafeMutablePointer<addrinfo>? = first
            while let current = entry {
                let descriptor = socket(
                    current.pointee.ai_family, current.pointee.ai_socktype | Int32(SOCK_CLOEXEC.rawValue),
                    current.pointee.ai_protocol)
                if descriptor >= 0 {
                    if Glibc.connect(descriptor, current.pointee.ai_addr, current.pointee.ai_addrlen) == 0 {
                        var yes: Int32 = 1
                        setsockopt(
                            descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &yes, socklen_t(MemoryLayout<Int32>.size))
                        return descriptor
                    }
                    lastError = errno
                    Glibc.close(descriptor)
                }
                entry = current.pointee.ai_next
            }
            throw SocketError("cannot connect to \(host):\(port)", lastError)
        }
    }

    /// A TLS client session over a connected socket.
    final class TLSSession: Sendable {
        // OpenSSL handles are used only by the connection's single I/O thread (and by the
        // thread that set them up before handing them over), so plain storage is safe.
        nonisolated(unsafe) private let context: OpaquePointer
        nonisolated(unsafe) private let ssl: OpaquePointer

        init(descriptor: Int32, host: String, trustedCertificatesFile: String?) throws {
            guard let context = SSL_CTX_new(TLS_client_method()) else {
                throw SocketError.tls("cannot create a TLS context")
            }
            _ = sybil_ssl_ctx_set_min_tls12(context)
            SSL_CTX_set_default_verify_paths(context)
            if let trustedCertificatesFile, SSL_CTX_load_verify_locations(context, trustedCertificatesFile, nil) != 1 {
                SSL_CTX_free(context)
                throw SocketError.tls("cannot load trusted certificates from \(trustedCertificatesFile)")
            }
            SSL_CTX_set_verify(context, SSL_VERIFY_PEER, nil)
            guard let ssl = SSL_new(context) else {
                SSL_CTX_free(context)
                throw SocketError.tls("cannot create a TLS session")
            }
            self.context = context
            self.ssl = ssl
            _ = sybil_ssl_set_host_name(ssl, host)
            SSL_set1_host(ssl, host)
            SSL_set_fd(ssl, descriptor)
            guard SSL_connect(ssl) == 1 else {
                let reason = SocketError.openSSLReason()
                let verify = SSL_get_verify_result(ssl)
                close()
                let detail = verify == X509_V_OK ? reason : String(cString: X509_verify_cert_error_string(verify))
                throw SocketError.tls("TLS handshake with \(host) failed: \(detail)")
            }
        }

        func write(_ bytes: ArraySlice<UInt8>) throws -> Int {
            let written = bytes.withUnsafeBytes { SSL_write(ssl, $0.baseAddress, Int32($0.count)) }
            if written > 0 { return Int(written) }
            switch SSL_get_error(ssl, written) {
            case SSL_ERROR_WANT_READ, SSL_ERROR_WANT_WRITE: return 0
            default: throw SocketError.tls("TLS write failed: \(SocketError.openSSLReason())")
            }
        }

        func read(into buffer: inout [UInt8]) throws -> Int {
            let count = buffer.withUnsafeMutableBytes { SSL_read(ssl, $0.baseAddress, Int32($0.count)) }
            if count > 0 { return Int(count) }
            switch SSL_get_error(ssl, count) {
            case SSL_ERROR_WANT_READ, SSL_ERROR_WANT_WRITE: return -1
            case SSL_ERROR_ZERO_RETURN: return 0
            default: throw SocketError.tls("TLS read failed: \(SocketError.openSSLReason())")
            }
        }

        func close() {
            SSL_shutdown(ssl)
            SSL_free(ssl)
            SSL_CTX_free(context)
        }
    }

    /// A socket or TLS failure, with the system's reason.
    struct SocketError: Error, Sendable, CustomStringConvertible {
        var description: String

        init(_ action: String, _ code: Int32) {
            description = code == 0 ? action : "\(action): \(String(cString: strerror(code)))"
        }

        static func tls(_ message: String) -> SocketError { SocketError(message, 0) }

        static func openSSLReason() -> String {
            var buffer = [CChar](repeating: 0, count: 256)
            sybil_ssl_error_string(&buffer, buffer.count)
            return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
    }
#endif
