extension HTTPConnectionStateMachine {
    /// What the connection is doing, with what only that stage has: a response's framing
    /// exists only while one is in progress, a linger deadline only while lingering.
    enum Phase {
        /// Between responses: the next queued request is dispatched when there is one.
        case reading
        /// A handler (or a refusal) is answering a request.
        case handling(Response)
        /// A chunked response body is being produced.
        case streaming(Response)
        /// The connection speaks WebSocket to a session.
        case webSocket
        /// Our side is done and our half shut down; input is discarded until the peer closes
        /// or the deadline passes, so a final error response is not lost to a reset.
        case lingering(deadline: Duration)
        /// Closed.
        case closed

        /// The response in progress, when one is.
        var response: Response? {
            switch self {
            case .handling(let response), .streaming(let response): response
            default: nil
            }
        }

        var isReading: Bool {
            if case .reading = self { return true }
            return false
        }

        var isStreaming: Bool {
            if case .streaming = self { return true }
            return false
        }

        var isWebSocket: Bool {
            if case .webSocket = self { return true }
            return false
        }

        var isClosed: Bool {
            if case .closed = self { return true }
            return false
        }
    }

    /// How the response in progress ends.
    struct Response {
        /// The connection stays open after it (else it says `Connection: close`).
        var keepAlive: Bool
        /// It answers a HEAD: the head only, never a body or an upgrade.
        var isHead: Bool
        /// It is all written: once flushed, the connection lingers and closes.
        var complete = false
    }

    /// What becomes of the bytes the peer sends.
    enum Input: Equatable {
        /// They are parsed (as requests, or WebSocket frames).
        case open
        /// They are read and dropped: a request was refused, or the peer sent its close frame.
        case discarding
        /// The peer closed its sending half: nothing more will arrive.
        case ended
    }

    /// The request being read.
    enum Reading {
        /// Nothing of a next request has arrived.
        case idle
        /// Its head is arriving, since its first byte at `started`.
        case head(started: Duration)
        /// Its head is complete and its body arriving.
        case body(Partial)
    }

    /// A request read whole, or the reason one could not be read.
    enum Queued {
        /// With the route resolved from its head.
        case request(HTTPServerRequest, any HTTPRoute)
        case refusal(status: Int, message: String)
        /// A body consumer, or the handler from the head, refused the request with this
        /// answer; the connection closes after it.
        case refused(HTTPServerResponse)
        /// The handler answered from the head and the short body is dropped as it arrives;
        /// the connection may stay open.
        case answeredAtHead(HTTPServerResponse, keepAlive: Bool, isHead: Bool)
    }

    /// The request whose body is arriving: its head, and its body so far or the consumer
    /// taking it (or neither, when it was answered from its head and its body is dropped),
    /// with the body's progress for its timeouts.
    struct Partial {
        var head: HTTPRequestHead
        /// What the handler resolved from the head.
        var route: any HTTPRoute
        var body: [UInt8] = []
        var consumer: (any HTTPRequestBodyConsumer)?
        /// Answered from its head: the body is read and dropped.
        var discarding = false
        /// When the body's clocks started (its head arrived, or reading resumed).
        var bodyStarted: Duration
        /// Body bytes received since ``bodyStarted``.
        var bodyReceived = 0
        /// When a body byte last arrived (or the clocks started).
        var lastProgress: Duration

        init(
            head: HTTPRequestHead, route: any HTTPRoute, consumer: (any HTTPRequestBodyConsumer)? = nil,
            discarding: Bool = false, now: Duration
        ) {
            self.head = head
            self.route = route
            self.consumer = consumer
            self.discarding = discarding
            bodyStarted = now
            lastProgress = now
        }

        /// When the body has gone idle too long, or fallen below the minimum rate after the
        /// grace: each byte received buys `1 / minimumBodyRate` seconds from its start.
        func deadline(_ limits: Limits) -> Duration {
            let earned = Duration.seconds(bodyReceived) / limits.minimumBodyRate
            return min(lastProgress + limits.bodyIdleTimeout, bodyStarted + max(limits.bodyRateGrace, earned))
        }

        /// Starts the clocks again: time the connection did not read is not the body's.
        mutating func restartClocks(now: Duration) {
            bodyStarted = now
            bodyReceived = 0
            lastProgress = now
        }
    }

    /// The routes resolved from the heads one read completed, in order, until the machine
    /// takes each head's event: the parser asks for a head's body limit as it reads the head,
    /// before the machine sees it, so the route is resolved there, once, and handed on. Used
    /// only on the thread that drives the machine (`@unchecked Sendable` for the parser's
    /// closure).
    final class ResolvedRoutes: @unchecked Sendable {
        private let route: @Sendable (HTTPRequestHead) -> any HTTPRoute
        private var pending: [(head: HTTPRequestHead, route: any HTTPRoute)] = []
        private var taken = 0

        init(_ route: @escaping @Sendable (HTTPRequestHead) -> any HTTPRoute) {
            self.route = route
        }

        /// Resolves `head` and keeps its route for ``take(_:)``.
        func resolve(_ head: HTTPRequestHead) -> any HTTPRoute {
            let resolved = route(head)
            pending.append((head, resolved))
            return resolved
        }

        /// The route resolved for `head`, the next head read; resolved now only if the parser
        /// did not ask for its body limit.
        func take(_ head: HTTPRequestHead) -> any HTTPRoute {
            guard taken < pending.count, pending[taken].head == head else { return route(head) }
            taken += 1
            return pending[taken - 1].route
        }

        /// Forgets the routes of the read just handled (those of heads refused with it).
        func clear() {
            guard !pending.isEmpty else { return }
            pending.removeAll(keepingCapacity: true)
            taken = 0
        }
    }
}
