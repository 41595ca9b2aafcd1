#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension ServerEventLoop {
    /// Carries out the actions the machine of `connection` queued, sends what the socket takes
    /// and reports it back, until the machine has nothing more to do; then updates the
    /// poller's interest, the producer's room and the next deadline. `applied` posted bytes
    /// were handed to the machine by this step.
    func settle(_ connection: ServerConnection, now: Duration, applied: Int = 0) {
        while true {
            var index = 0
            while index < actions.count {
                let action = actions[index]
                index += 1
                guard perform(action, on: connection, now: now) else {
                    actions.removeAll(keepingCapacity: true)
                    connection.work.room?.update(applied: applied, unsent: 0)
                    statistics.queuedOutput(queuedOutput)
                    return
                }
            }
            actions.removeAll(keepingCapacity: true)
            guard connection.unflushed else { break }
            if gatheringOutput {
                // Sent with whatever else is posted for it in this turn of the loop
                // (``sendGatheredOutput()``), which also settles the rest.
                if !connection.outputGathered {
                    connection.outputGathered = true
                    gatheredOutput.append(connection.id)
                }
                connection.work.room?.update(applied: applied, unsent: connection.pendingOutput)
                return
            }
            flush(connection)
            connection.machine.flushed(remaining: connection.pendingOutput, now: now, into: &actions)
        }
        updateInterest(connection)
        connection.work.room?.update(applied: applied, unsent: connection.pendingOutput)
        statistics.queuedOutput(queuedOutput)
        let settled = connection.machine.settledState()
        countHeldRequests(connection, now: settled.bufferedRequestBytes)
        lowerDeadline(settled.nextDeadline)
    }

    /// Carries out one action; `false` once the connection is closed.
    private func perform(
        _ action: HTTPConnectionStateMachine.Action, on connection: ServerConnection, now: Duration
    ) -> Bool {
        let id = connection.id
        switch action {
        case .dispatch(let request, let route):
            // A request its route answers without suspending costs no task and no thread
            // switch; its answer is taken as a task's would be, in the connection's order.
            if let response = route.immediateResponse(to: request) {
                connection.machine.responded(response, now: now, into: &actions)
                return true
            }
            // The connection owns the task: closing it (the peer gone, a failed write, the
            // server's drain over) cancels the handler.
            // The loop is held strongly (a retain, where a weak reference cost more on every
            // request): a task that outlives the loop's run posts into a mailbox nobody reads.
            var request = request
            request.inputEnd = connection.inputEnd
            connection.handlerTask = tasks.start(on: executor) { [self, request] in
                let response = await route.handle(request)
                post(.respond(id, response))
            }
        case .refuse(let status, let message):
            connection.machine.responded(handler.refusal(status: status, message: message), now: now, into: &actions)
        case .write(let bytes):
            queuedOutput += bytes.count
            connection.enqueue(bytes)
        case .startStream(let producer):
            let room = OutputBackpressure(statistics: statistics)
            let limit = connection.machine.limits.maximumBacklog
            let stream = HTTPResponseStream(
                accepting: { [weak self] bytes in
                    let framed = HTTPResponseWriter.chunk(bytes)
                    return self?.offer(framed, on: id, to: room, limit: limit) ?? false
                },
                room: { await room.waitForRoom() })
            let task = tasks.start(on: executor) { [weak self] in
                await producer(stream)
                self?.post(.endStream(id))
            }
            connection.work = .stream(stream, room, task)
        case .discardStream(let producer):
            // The producer runs against a closed stream so whatever it set up is released.
            let closed = HTTPResponseStream { _ in }
            closed.markClosed()
            tasks.start(on: executor) { await producer(closed) }.cancel()
        case .startWebSocket(let session):
            let room = OutputBackpressure(statistics: statistics)
            let limit = connection.machine.limits.maximumBacklog
            let socket = ServerWebSocket(
                accepting: { [weak self] outgoing in
                    switch outgoing {
                    case .frame(let bytes):
                        return self?.offer(bytes, on: id, to: room, limit: limit) ?? false
                    case .close(let code, let reason):
                        self?.post(.webSocketClose(id, code: code, reason: reason))
                        return true
                    }
                },
                room: { await room.waitForRoom() }, hasRoom: { room.hasRoom },
                consumed: { [weak self] in self?.post(.webSocketConsumed(id)) })
            let task = tasks.start(on: executor) { [weak self] in
                await session(socket)
                self?.post(.sessionEnded(id))
            }
            connection.work = .webSocket(socket, room, task)
        case .deliver(let message):
            if case .webSocket(let socket, _, _) = connection.work { socket.receive(message) }
            statistics.inbox(connection.machine.inboxWeight)
        case .closeSession:
            if case .webSocket(let socket, let room, _) = connection.work {
                socket.markDisconnected()
                room.close()
            }
        case .stopWork:
            stopWork(connection)
        case .shutdownWriting:
            shutdown(connection.descriptor, Int32(SHUT_WR))
        case .close:
            close(connection)
            return false
        case .readInterest(let wanted):
            connection.wantsRead = wanted
        }
        return true
    }

    /// Updates the count of request bytes held, for ``TransportStatistics``.
    private func countHeldRequests(_ connection: ServerConnection, now held: Int) {
        guard held != connection.heldRequestBytes else { return }
        bufferedRequests += held - connection.heldRequestBytes
        connection.heldRequestBytes = held
        statistics.bufferedRequests(bufferedRequests)
    }

    /// Sends what the socket takes; a failed send tells the machine.
    func flush(_ connection: ServerConnection) {
        connection.unflushed = false
        while connection.pendingOutput > 0 {
            let sent = connection.output.withUnsafeBytes { buffer in
                ListeningSocket.send(
                    connection.descriptor, UnsafeRawBufferPointer(rebasing: buffer[connection.outputOffset...]))
            }
            guard let sent else {
                connection.machine.failed(into: &actions)
                return
            }
            if sent == 0 { break }
            connection.outputOffset += sent
            queuedOutput -= sent
        }
        if connection.pendingOutput == 0 {
            connection.output.removeAll(keepingCapacity: connection.output.capacity <= 1 << 20)
            connection.outputOffset = 0
        }
    }

    func updateInterest(_ connection: ServerConnection) {
        guard connections[connection.id] != nil else { return }
        let readable = connection.wantsRead
        let writable = connection.pendingOutput > 0
        // While a handler runs and input is not read (requests wait behind it), the peer's
        // half-close is still watched for: a handler waiting for news answers at once.
        let halfClose = !readable && connection.handlerTask != nil && !connection.inputEnded
        guard
            readable != connection.watchingReadable || writable != connection.watchingWritable
                || halfClose != connection.watchingHalfClose
        else { return }
        connection.watchingReadable = readable
        connection.watchingWritable = writable
        connection.watchingHalfClose = halfClose
        poller.modify(
            connection.descriptor, token: connection.id, readable: readable, writable: writable, halfClose: halfClose)
    }

    /// Offers a producer's framed bytes to the loop through the connection's gate: posted when
    /// admitted; on the first refusal over the backlog limit the loop is told to cut the
    /// client off. Called on the producer's task.
    private func offer(_ bytes: [UInt8], on id: UInt64, to room: OutputBackpressure, limit: Int) -> Bool {
        switch room.admit(bytes.count, limit: limit) {
        case .accepted:
            post(.produced(id, bytes, room))
            return true
        case .overran:
            post(.overran(id, room))
            return false
        case .refused:
            return false
        }
    }

    private func stopWork(_ connection: ServerConnection) {
        connection.handlerTask?.cancel()
        connection.handlerTask = nil
        switch connection.work {
        case .stream(let stream, let room, let task):
            stream.markClosed()
            room.close()
            task.cancel()
        case .webSocket(let socket, let room, let task):
            socket.receive(.closed(code: 1006, reason: "the connection ended"))
            socket.markDisconnected()
            room.close()
            task.cancel()
        case .none:
            break
        }
    }

    /// Closes the descriptor and forgets the connection.
    func close(_ connection: ServerConnection) {
        guard connections.removeValue(forKey: connection.id) != nil else { return }
        stopWork(connection)
        countHeldRequests(connection, now: 0)
        queuedOutput -= connection.pendingOutput
        poller.remove(connection.descriptor)
        closeDescriptor(connection.descriptor)
    }
}
