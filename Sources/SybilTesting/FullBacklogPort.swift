#if canImport(Glibc)
    import Foundation
    import Glibc

    /// A loopback port whose listening socket's accept queue is full and never drained: a TCP
    /// connect to it never completes (Linux drops the SYN of a listener whose queue is full, and
    /// the client only retries it), so a client waits until its own connect timeout, whatever the
    /// machine's speed. The queue (a backlog of 0 holds one connection) is filled by a connection
    /// of this port's own, and ``init(host:)`` returns only once the listener counts it as queued,
    /// so no later connect can slip in first.
    public final class FullBacklogPort: Sendable {
        /// The port on ``host``.
        public let port: UInt16
        /// The numeric IPv4 loopback address the port listens on.
        public let host: String
        private let listener: Int32
        private let filler: Int32

        /// Listens on a fresh port of `host` (127.0.0.1 unless given) with a full accept queue.
        public init(host: String = "127.0.0.1") throws {
            let (listener, boundAddress) = try LoopbackSocket.bound(host: host)
            var address = boundAddress
            guard listen(listener, 0) == 0 else {
                close(listener)
                throw POSIXError(.EADDRINUSE)
            }
            let filler = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(filler, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            guard filler >= 0, connected == 0 else {
                if filler >= 0 { close(filler) }
                close(listener)
                throw POSIXError(.ECONNREFUSED)
            }
            self.listener = listener
            self.filler = filler
            self.host = host
            port = UInt16(bigEndian: address.sin_port)
            // The handshake's last ACK may still be on its way to the listener: wait (a signal of
            // the kernel's, not a length of time) until the listener counts the connection queued.
            var checks = 0
            while Self.queued(listener) < 1 {
                checks += 1
                // Bounds a broken kernel's wait; it decides nothing.
                guard checks < 10_000_000 else { throw POSIXError(.ETIMEDOUT) }
                sched_yield()
            }
        }

        deinit {
            close(filler)
            close(listener)
        }

        /// `http://<host>:<port>`.
        public var url: URL { URL(string: "http://\(host):\(port)")! }

        /// Connections waiting in `listener`'s accept queue (`tcpi_unacked` of a listening socket,
        /// as `ss` shows it in Recv-Q).
        private static func queued(_ listener: Int32) -> UInt32 {
            var info = tcp_info()
            var size = socklen_t(MemoryLayout<tcp_info>.size)
            guard getsockopt(listener, Int32(IPPROTO_TCP), TCP_INFO, &info, &size) == 0 else { return 1 }
            return info.tcpi_unacked
        }
    }
#endif
