#if canImport(Glibc) && canImport(COpenSSL)
    import SybilCore

    /// The idle connections of one ``SocketHTTPClient``, kept per origin for its next request
    /// (HTTP/1.1 keep-alive, as URLSession and the SDKs do). A connection comes back only after
    /// a response read to its framed end; it is handed out again only while it is open both
    /// ways, holds no unread bytes and has been idle less than ``idleLifetime``. Past
    /// ``maximumIdlePerOrigin`` the longest idle is closed. Expired connections are closed when
    /// the pool is next used, and every idle one when the pool goes away.
    final class SocketConnectionPool: Sendable {
        /// The most idle connections kept for one origin.
        static let maximumIdlePerOrigin = 4
        /// How long a connection may wait idle before it is closed instead of reused: a server
        /// may close it sooner (then the request is retried when that is safe), but one idle
        /// longer is likely closed already and not worth the round trip.
        static let idleLifetime = Duration.seconds(30)

        /// Where a connection leads: scheme, host and port.
        struct Origin: Hashable, Sendable {
            var scheme: String
            var host: String
            var port: Int
        }

        private struct Idle {
            var connection: SocketConnection
            var since: Duration
        }

        /// Time since the pool was made, on its clock.
        private let now: @Sendable () -> Duration
        private let idle = Locked<[Origin: [Idle]]>([:])

        /// A pool whose idle lifetimes are measured on `clock`.
        init<C: Clock<Duration>>(clock: C) {
            let start = clock.now
            now = { start.duration(to: clock.now) }
        }

        deinit {
            for connection in idle.withLock({ $0.values.flatMap { $0.map(\.connection) } }) { connection.shutdown() }
        }

        /// The most recently idle usable connection to `origin`, or `nil`; unusable ones met
        /// on the way are closed.
        func take(_ origin: Origin) -> SocketConnection? {
            let now = now()
            let (found, stale) = idle.withLock { idle -> (SocketConnection?, [SocketConnection]) in
                var list = idle[origin] ?? []
                var stale: [SocketConnection] = []
                var found: SocketConnection?
                while let last = list.popLast() {
                    if now - last.since < Self.idleLifetime, last.connection.isIdleAndOpen {
                        found = last.connection
                        break
                    }
                    stale.append(last.connection)
                }
                idle[origin] = list.isEmpty ? nil : list
                return (found, stale)
            }
            for connection in stale { connection.shutdown() }
            return found
        }

        /// Keeps `connection` for the next request to `origin`, or closes it when it cannot
        /// carry one; closes what expired and, past the limit, the longest idle.
        func release(_ connection: SocketConnection, to origin: Origin) {
            guard connection.isIdleAndOpen else {
                connection.shutdown()
                return
            }
            let now = now()
            let closed = idle.withLock { idle -> [SocketConnection] in
                var closed: [SocketConnection] = []
                for (key, list) in idle {
                    let (kept, expired) = (
                        list.filter { now - $0.since < Self.idleLifetime },
                        list.filter { now - $0.since >= Self.idleLifetime }
                    )
                    closed += expired.map(\.connection)
                    idle[key] = kept.isEmpty ? nil : kept
                }
                var list = idle[origin] ?? []
                list.append(Idle(connection: connection, since: now))
                while list.count > Self.maximumIdlePerOrigin { closed.append(list.removeFirst().connection) }
                idle[origin] = list
                return closed
            }
            for connection in closed { connection.shutdown() }
        }

        /// Idle connections kept for `origin` now.
        func idleCount(_ origin: Origin) -> Int {
            idle.withLock { $0[origin]?.count ?? 0 }
        }
    }
#endif
