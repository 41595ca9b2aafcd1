import SybilCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What handler tasks ask of the loop; applied on the loop thread in order.
enum LoopCommand: Sendable {
    case respond(UInt64, HTTPServerResponse)
    /// A stream producer or session posted `bytes` (framed), counted in `room`.
    case produced(UInt64, [UInt8], OutputBackpressure)
    case endStream(UInt64)
    case overran(UInt64, OutputBackpressure)
    case webSocketClose(UInt64, code: UInt16, reason: String)
    case webSocketConsumed(UInt64)
    case sessionEnded(UInt64)
    case checkDeadlines
    case shutdown(grace: Duration)
}

/// The single-threaded event loop behind ``HTTPServer``: system calls and dispatch. It
/// accepts, reads, writes and closes; every rule about what to do with a connection is
/// ``HTTPConnectionStateMachine``'s, whose actions the loop carries out. It sleeps until the
/// earliest deadline of any connection (or a readiness, or a command). Everything but
/// ``post(_:)`` runs on the loop thread; `@unchecked Sendable` because the thread is its only
/// user.
final class ServerEventLoop: @unchecked Sendable {
    let statistics = TransportStatistics.Counters()
    private let configuration: HTTPServer.Configuration
    let handler: any HTTPHandler
    /// The server's own threads, which every task below prefers.
    let executor: ServerExecutor
    /// Every handler, stream and session task, counted until it ends.
    let tasks = ConnectionTasks()
    let poller: EventPoller
    private let listener: Int32
    private let limits: HTTPConnectionStateMachine.Limits
    /// Commands posted and not yet taken, and whether the loop sleeps (or is about to) with
    /// none: only a post that finds it asleep wakes it, so a busy loop is not woken again for
    /// every answer a task posts.
    private struct Mailbox {
        var commands: [LoopCommand] = []
        var asleep = false
    }
    private let mailbox = Locked(Mailbox())
    /// The commands being applied (loop thread), swapped with the mailbox's.
    private var takenCommands: [LoopCommand] = []
    var connections: [UInt64: ServerConnection] = [:]
    private var nextID: UInt64 = 1
    private var drainDeadline: Duration?
    private var listenerResumesAt: Duration?
    /// No connection has a deadline before this (it may be earlier than needed, never later).
    private var earliestDeadline: Duration?
    var queuedOutput = 0
    /// Request bytes all connections' machines hold (``TransportStatistics/bufferedRequestBytes``).
    var bufferedRequests = 0
    var actions: [HTTPConnectionStateMachine.Action] = []
    /// While a producer's posted bytes are applied: ``settle(_:now:applied:)`` queues them
    /// without sending and notes the connection in ``gatheredOutput``.
    var gatheringOutput = false
    /// Connections whose posted bytes wait to be sent once the loop's commands are applied:
    /// frames or chunks posted together (an agent's tool step and its activity) leave in one
    /// send, and the client wakes once for them.
    var gatheredOutput: [UInt64] = []
    private var readBuffer = [UInt8](repeating: 0, count: 64 << 10)
    private static let listenerToken: UInt64 = 0

    init(
        configuration: HTTPServer.Configuration, handler: any HTTPHandler, executor: ServerExecutor, listener: Int32
    ) throws(ServerError) {
        self.configuration = configuration
        self.handler = handler
        self.executor = executor
        self.listener = listener
        limits = HTTPConnectionStateMachine.Limits(
            requestTimeout: configuration.requestTimeout, idleTimeout: configuration.idleTimeout)
        poller = try EventPoller()
    }

    /// Queues `command` for the loop and wakes it; any thread.
    func post(_ command: LoopCommand) {
        let asleep = mailbox.withLock { mailbox in
            mailbox.commands.append(command)
            defer { mailbox.asleep = false }
            return mailbox.asleep
        }
        if asleep { poller.wake() }
    }

    /// Runs until a shutdown has drained every connection.
    func run() {
        poller.add(listener, token: Self.listenerToken, readable: true, writable: false)
        while true {
            // Sleeps only with no command waiting; a post from then on wakes the loop.
            var timeout = waitTimeout(now: configuration.uptime())
            if timeout != 0,
                !mailbox.withLock({ mailbox in
                    mailbox.asleep = mailbox.commands.isEmpty
                    return mailbox.asleep
                })
            {
                timeout = 0
            }
            let ready = poller.wait(timeoutMilliseconds: timeout)
            for readiness in ready {
                if readiness.token == Self.listenerToken {
                    acceptPending()
                } else if let connection = connections[readiness.token] {
                    service(connection, readiness)
                }
            }
            // The queue and a spare swap places, so neither array is reallocated per turn.
            mailbox.withLock { mailbox in
                mailbox.asleep = false
                swap(&mailbox.commands, &takenCommands)
            }
            for command in takenCommands { apply(command) }
            takenCommands.removeAll(keepingCapacity: true)
            sendGatheredOutput()
            let now = configuration.uptime()
            if let resume = listenerResumesAt, now >= resume, drainDeadline == nil {
                listenerResumesAt = nil
                poller.modify(listener, token: Self.listenerToken, readable: true, writable: false)
            }
            if let earliest = earliestDeadline, now >= earliest { sweep(now) }
            if let drainDeadline, connections.isEmpty || now >= drainDeadline { break }
        }
        for connection in Array(connections.values) { close(connection) }
    }

    /// Sends the output gathered while the loop's commands were applied (one send per
    /// connection for everything posted in this turn) and settles each connection.
    func sendGatheredOutput() {
        guard !gatheredOutput.isEmpty else { return }
        let now = configuration.uptime()
        for id in gatheredOutput {
            // Closed since, or already sent by a later step of the same turn.
            guard let connection = connections[id] else { continue }
            connection.outputGathered = false
            guard connection.unflushed else { continue }
            settle(connection, now: now)
        }
        gatheredOutput.removeAll(keepingCapacity: true)
    }

    /// How long the poller may sleep: until the earliest deadline, or until woken.
    private func waitTimeout(now: Duration) -> Int32 {
        // The earliest of the three, without building an array on every turn of the loop.
        func earlier(_ first: Duration?, _ second: Duration?) -> Duration? {
            guard let first else { return second }
            guard let second else { return first }
            return min(first, second)
        }
        guard let earliest = earlier(earlier(earliestDeadline, listenerResumesAt), drainDeadline) else { return -1 }
        guard earliest > now else { return 0 }
        let (seconds, attoseconds) = (earliest - now).components
        let milliseconds = seconds * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
        return Int32(clamping: milliseconds)
    }

    // MARK: Accepting

    private func acceptPending() {
        defer {
            // Out of descriptors: the listener stays readable, so stop watching it for a moment
            // instead of spinning.
            if errno == EMFILE || errno == ENFILE, listenerResumesAt == nil {
                listenerResumesAt = configuration.uptime() + .milliseconds(100)
                poller.modify(listener, token: Self.listenerToken, readable: false, writable: false)
            }
        }
        while let descriptor = ListeningSocket.accept(listener) {
            let id = nextID
            nextID += 1
            let now = configuration.uptime()
            let machine = HTTPConnectionStateMachine(
                limits: limits, maximumHeadBytes: configuration.maximumHeadBytes,
                route: { [handler] head in handler.route(for: head) }, now: now)
            let connection = ServerConnection(id: id, descriptor: descriptor, machine: machine)
            connections[id] = connection
            poller.add(descriptor, token: id, readable: true, writable: false)
            if connections.count > configuration.maximumConnections {
                // Every connection beyond the limit is answered, never dropped silently: a
                // refused one reads nothing and lingers at most the linger time, and running out
                // of descriptors pauses accepting (above), so the refused ones stay bounded too.
                connection.machine.refuseConnection(
                    message: "The server is at its limit of connections; retry shortly.", now: now, into: &actions)
                settle(connection, now: now)
            } else {
                lowerDeadline(connection.machine.nextDeadline)
            }
        }
    }

    // MARK: Readiness

    private func service(_ connection: ServerConnection, _ readiness: EventPoller.Readiness) {
        if readiness.writable {
            flush(connection)
            settle(connection, now: configuration.uptime())
        }
        guard connections[connection.id] != nil else { return }
        if readiness.peerHalfClosed, !connection.watchingReadable {
            // The input ended behind requests not read yet: they are read and answered later;
            // a handler waiting for news answers now, and the half-close is not watched again.
            connection.endInput()
            updateInterest(connection)
        }
        if readiness.readable || readiness.hungUp {
            if connection.watchingReadable {
                receive(connection)
            } else if readiness.hungUp {
                connection.machine.failed(into: &actions)
                settle(connection, now: configuration.uptime())
            }
        }
    }

    private func receive(_ connection: ServerConnection) {
        for _ in 0..<4 {
            let count = readBuffer.withUnsafeMutableBytes { recv(connection.descriptor, $0.baseAddress, $0.count, 0) }
            let now = configuration.uptime()
            if count > 0 {
                connection.machine.bytesRead(readBuffer[..<count], now: now, into: &actions)
                settle(connection, now: now)
                guard connections[connection.id] != nil, connection.machine.wantsInputNow() else { break }
                if count < readBuffer.count { break }
            } else if count == 0 {
                // A half-close or a client gone: the requests read are answered in order, and a
                // handler waiting for news answers now with what it has (``HTTPInputEnd``).
                connection.endInput()
                connection.machine.peerHalfClosed(now: now, into: &actions)
                settle(connection, now: now)
                break
            } else {
                if errno == EINTR { continue }
                if errno != EAGAIN && errno != EWOULDBLOCK {
                    connection.machine.failed(into: &actions)
                    settle(connection, now: now)
                }
                break
            }
        }
    }

    // MARK: Commands

    private func apply(_ command: LoopCommand) {
        let now = configuration.uptime()
        switch command {
        case .respond(let id, let response):
            guard let connection = connections[id] else { return }
            connection.handlerTask = nil
            connection.machine.responded(response, now: now, into: &actions)
            settle(connection, now: now)
        case .produced(let id, let bytes, let room):
            guard let connection = connections[id], connection.work.room === room else {
                room.update(applied: bytes.count, unsent: 0)
                return
            }
            connection.machine.produced(bytes, into: &actions)
            gatheringOutput = true
            settle(connection, now: now, applied: bytes.count)
            gatheringOutput = false
        case .overran(let id, let room):
            guard let connection = connections[id], connection.work.room === room else { return }
            connection.machine.producerOverran(into: &actions)
            settle(connection, now: now)
        case .endStream(let id):
            guard let connection = connections[id] else { return }
            connection.machine.streamEnded(now: now, into: &actions)
            settle(connection, now: now)
        case .webSocketClose(let id, let code, let reason):
            guard let connection = connections[id] else { return }
            connection.machine.sessionClosed(code: code, reason: reason, now: now, into: &actions)
            settle(connection, now: now)
        case .webSocketConsumed(let id):
            guard let connection = connections[id], case .webSocket(let socket, _, _) = connection.work else { return }
            connection.machine.webSocketConsumed(weight: socket.takeConsumedWeight(), now: now, into: &actions)
            settle(connection, now: now)
        case .sessionEnded(let id):
            guard let connection = connections[id] else { return }
            connection.machine.sessionEnded(now: now, into: &actions)
            settle(connection, now: now)
        case .checkDeadlines:
            return
        case .shutdown(let grace):
            beginDrain(grace: grace, now: now)
        }
    }

    // MARK: Timeouts and shutdown

    func lowerDeadline(_ deadline: Duration?) {
        guard let deadline else { return }
        if let earliest = earliestDeadline, earliest <= deadline { return }
        earliestDeadline = deadline
    }

    /// Ticks every connection whose deadline has come, then finds the next earliest deadline.
    private func sweep(_ now: Duration) {
        earliestDeadline = nil
        for connection in Array(connections.values) {
            if let deadline = connection.machine.nextDeadline, deadline <= now {
                connection.machine.tick(now: now, into: &actions)
                settle(connection, now: now)
            } else {
                lowerDeadline(connection.machine.nextDeadline)
            }
        }
    }

    private func beginDrain(grace: Duration, now: Duration) {
        guard drainDeadline == nil else { return }
        drainDeadline = now + grace
        poller.remove(listener)
        closeDescriptor(listener)
        for connection in Array(connections.values) {
            connection.machine.shutdown(now: now, into: &actions)
            settle(connection, now: now)
        }
    }
}

#if canImport(Glibc)
    func closeDescriptor(_ descriptor: Int32) { _ = Glibc.close(descriptor) }
#else
    func closeDescriptor(_ descriptor: Int32) { _ = Darwin.close(descriptor) }
#endif
