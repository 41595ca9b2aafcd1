import Foundation
import Synchronization

/// An HTTP/1.1 server on one event-loop thread (epoll on Linux, `poll` elsewhere): keep-alive
/// and pipelining, Content-Length and chunked request bodies, limits (431, 413, 503 with
/// Retry-After when full), idle, head and body-progress timeouts (408), answers decided by a
/// request's head (its body never buffered), streamed responses, WebSocket upgrades, and a
/// graceful shutdown that lets in-flight responses finish.
///
/// Handlers run on tasks of their own, on the server's own executor threads, unless they answer
/// a request at once on the event-loop thread (``HTTPRoute/immediateResponse(to:)``); each task
/// belongs to its connection and is cancelled when the connection closes (see
/// ``shutdown(grace:)``). Idle connections cost a descriptor and a small object, not a thread.
/// The server runs from `init` until ``shutdown(grace:)``; dropping the last reference does
/// not stop it, so always shut it down.
public final class HTTPServer: Sendable {
    /// Limits, timeouts and the address.
    public struct Configuration: Sendable {
        /// A numeric IPv4 or IPv6 address; loopback by default.
        public var host: String
        /// The port; 0 picks a free one.
        public var port: Int
        /// Connections served at once; more are answered 503 and closed.
        public var maximumConnections: Int
        /// The largest request head (431 beyond).
        public var maximumHeadBytes: Int
        /// A kept-alive connection with nothing in progress is closed after this long.
        public var idleTimeout: Duration
        /// A request's head must arrive within this time of its first byte (408 otherwise);
        /// its body has no total deadline, only an idle timeout and a minimum rate (see
        /// `HTTPConnectionStateMachine.Limits`), so a slow link that keeps sending succeeds.
        public var requestTimeout: Duration
        /// Monotonic time for the timeouts; tests pass a manual clock's reading.
        public var uptime: @Sendable () -> Duration
        /// How long ``HTTPServer/shutdown(grace:)`` waits, after its grace, for cancelled
        /// handler tasks to end before it returns without them (on the continuous clock).
        public var taskStragglerLimit: Duration = .seconds(5)

        /// The defaults: 127.0.0.1, a free port, 4,096 connections, 16 KiB heads, 60 s idle,
        /// 10 s per request head.
        public init(
            host: String = "127.0.0.1", port: Int = 0, maximumConnections: Int = 4096,
            maximumHeadBytes: Int = 16 << 10, idleTimeout: Duration = .seconds(60),
            requestTimeout: Duration = .seconds(10), uptime: (@Sendable () -> Duration)? = nil
        ) {
            self.host = host
            self.port = port
            self.maximumConnections = maximumConnections
            self.maximumHeadBytes = maximumHeadBytes
            self.idleTimeout = idleTimeout
            self.requestTimeout = requestTimeout
            if let uptime {
                self.uptime = uptime
            } else {
                let start = ContinuousClock.now
                self.uptime = { ContinuousClock.now - start }
            }
        }
    }

    /// The configuration the server was started with.
    public let configuration: Configuration
    /// The port actually bound.
    public let port: Int
    private let loop: ServerEventLoop
    private let executor: ServerExecutor
    /// Whether ``shutdown(grace:)`` stops ``executor`` (the server started it).
    private let ownsExecutor: Bool
    private let stopped = StopSignal()

    /// Binds and starts serving with `handler` on an event-loop thread and two executor
    /// threads of its own, or on `executor` when one is given: that one stays the caller's to
    /// stop (after ``shutdown(grace:)``, and after any other work it runs ended). Throws when the
    /// address cannot be bound.
    public init(
        configuration: Configuration, handler: any HTTPHandler, executor given: ServerExecutor? = nil
    ) throws(ServerError) {
        ListeningSocket.raiseDescriptorLimit()
        let listener = try ListeningSocket.open(host: configuration.host, port: configuration.port, backlog: 1024)
        self.configuration = configuration
        port = listener.port
        let executor = given ?? ServerExecutor(threads: 2)
        do {
            loop = try ServerEventLoop(
                configuration: configuration, handler: handler, executor: executor, listener: listener.descriptor)
        } catch {
            if given == nil { executor.stop() }
            closeDescriptor(listener.descriptor)
            throw error
        }
        self.executor = executor
        ownsExecutor = given == nil
        let thread = Thread { [loop, stopped] in
            ThreadName.setCurrent("sybil-server")
            loop.run()
            stopped.signal()
        }
        thread.start()
    }

    /// The base URL clients use, e.g. `http://127.0.0.1:8799`.
    public var baseURL: URL {
        let host = configuration.host.contains(":") ? "[\(configuration.host)]" : configuration.host
        return URL(string: "http://\(host):\(port)")!
    }

    /// What the transport holds for its clients right now (queued output, waiting producers,
    /// WebSocket inboxes, tasks and executor threads running): for tests and monitoring.
    public var statistics: TransportStatistics {
        var snapshot = loop.statistics.snapshot
        snapshot.runningTasks = loop.tasks.running
        snapshot.executorThreads = executor.runningThreads
        return snapshot
    }

    /// Makes the server look at its deadlines now. The loop sleeps until the earliest
    /// deadline by the configuration's ``Configuration/uptime``; a test that moves that clock
    /// by hand calls this afterwards so the timeouts that came act without waiting.
    public func checkDeadlines() {
        loop.post(.checkDeadlines)
    }

    /// Stops accepting, lets in-flight responses finish (streams are ended, WebSockets closed
    /// with 1001) until every connection is closed or `grace` has passed; closing a
    /// connection cancels its handler, stream or session task. Returns once those tasks have
    /// ended and the server's executor threads with them (an executor given to `init` is left
    /// running), or when a task still runs ``Configuration/taskStragglerLimit`` after the grace.
    public func shutdown(grace: Duration = .seconds(5)) async {
        loop.post(.shutdown(grace: grace))
        await stopped.wait()
        // A handler that ignores its cancellation (or blocks its thread) does not hold the
        // shutdown for ever: after the grace and the configuration's straggler limit it is left running
        // and the executor stops without waiting for its threads.
        let ended = await loop.tasks.idle(atMost: grace + configuration.taskStragglerLimit)
        guard ownsExecutor else { return }
        executor.stop()
        if ended { await executor.stopped() }
    }

}
