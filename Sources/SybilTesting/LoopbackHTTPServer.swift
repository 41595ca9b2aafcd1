import Foundation
import SybilCore

#if canImport(Glibc)
    import Glibc
#endif

/// A minimal HTTP server on 127.0.0.1 for transport tests (not a product: see `sybil serve`): it accepts connections one at a
/// time on a background thread, reads the request head (and a Content-Length body), and
/// hands both to the test's responder, which writes raw bytes.
public final class LoopbackHTTPServer: Sendable {
    /// A received request.
    public struct Request: Sendable {
        /// The request line and header fields.
        public var head: String
        /// The body (Content-Length bytes).
        public var body: [UInt8]
        /// `GET /path HTTP/1.1`.
        public var requestLine: String { String(head.split(separator: "\r\n").first ?? "") }
        /// The value of header field `name`.
        public func header(_ name: String) -> String? {
            for line in head.split(separator: "\r\n").dropFirst() {
                let parts = line.split(separator: ":", maxSplits: 1)
                if parts.count == 2, parts[0].lowercased() == name.lowercased() {
                    return parts[1].trimmingCharacters(in: .whitespaces)
                }
            }
            return nil
        }
    }

    /// The accepted connection, for the responder to write to (and read from).
    public final class Connection: Sendable {
        let descriptor: Int32
        private let closing = Locked(false)
        init(descriptor: Int32) { self.descriptor = descriptor }
        /// On a server that keeps connections open: close this one once the responder returns
        /// (as a server does with a connection idle too long).
        public func closeAfterResponse() { closing.withLock { $0 = true } }
        var closesAfterResponse: Bool { closing.withLock { $0 } }
        /// Writes text; returns `false` when the peer is gone.
        @discardableResult
        public func write(_ text: String) -> Bool { write(Array(text.utf8)) }
        /// Up to `maximum` bytes, blocking; empty at the end of the stream.
        public func read(maximum: Int = 65_536) -> [UInt8] {
            var buffer = [UInt8](repeating: 0, count: maximum)
            let count = recv(descriptor, &buffer, maximum, 0)
            return count > 0 ? Array(buffer[0..<count]) : []
        }
        /// Reads into `buffer[offset...]` (a buffer the caller reuses), blocking; the count
        /// read, 0 at the end of the stream.
        public func read(into buffer: inout [UInt8], at offset: Int = 0) -> Int {
            precondition(offset < buffer.count, "no room to read into")
            return max(
                0, buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress! + offset, $0.count - offset, 0) })
        }
        /// Reads into `target` (memory the caller owns, such as the rest of a frame's payload),
        /// blocking; the count read, 0 at the end of the stream or on an error.
        public func read(into target: UnsafeMutableRawBufferPointer) -> Int {
            guard let base = target.baseAddress, !target.isEmpty else { return 0 }
            return max(0, recv(descriptor, base, target.count, 0))
        }
        /// Writes `first` then `second` with gathered writes (no joined copy); returns `false`
        /// when the peer is gone.
        @discardableResult
        public func write(_ first: ArraySlice<UInt8>, _ second: ArraySlice<UInt8> = []) -> Bool {
            var offset = 0
            let total = first.count + second.count
            while offset < total {
                let sent = first.withUnsafeBytes { head in
                    second.withUnsafeBytes { tail in
                        var vectors = [
                            iovec(
                                iov_base: UnsafeMutableRawPointer(
                                    mutating: head.baseAddress.map { $0 + min(offset, head.count) }),
                                iov_len: max(0, head.count - offset)),
                            iovec(
                                iov_base: UnsafeMutableRawPointer(
                                    mutating: tail.baseAddress.map { $0 + max(0, offset - head.count) }),
                                iov_len: tail.count - max(0, offset - head.count)),
                        ]
                        return vectors.withUnsafeMutableBufferPointer { vectors in
                            var message = msghdr()
                            message.msg_iov = vectors.baseAddress
                            message.msg_iovlen = vectors.count
                            return sendmsg(descriptor, &message, Int32(MSG_NOSIGNAL))
                        }
                    }
                }
                if sent <= 0 { return false }
                offset += sent
            }
            return true
        }
        /// Writes bytes; returns `false` when the peer is gone (the rest is not sent).
        @discardableResult
        public func write(_ bytes: [UInt8]) -> Bool {
            var offset = 0
            while offset < bytes.count {
                let sent = bytes[offset...].withUnsafeBytes {
                    send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
                }
                if sent <= 0 { return false }
                offset += sent
            }
            return true
        }

        /// Writes `block` again and again, up to `limit` bytes in all, keeping count in
        /// `outcome`; returns when the limit is reached or the peer is gone. A hostile server's
        /// flood, bounded so a client that reads everything fails its test instead of running
        /// forever.
        public func flood(_ block: [UInt8], limit: Int, into outcome: Flood) {
            var total = 0
            while total < limit {
                guard write(block) else {
                    outcome.end(sentEverything: false)
                    return
                }
                total += block.count
                outcome.count(total)
            }
            outcome.end(sentEverything: true)
        }
    }

    /// What a flood sent, and how it ended.
    public final class Flood: Sendable {
        private let state = Locked<(sent: Int, sentEverything: Bool?)>((0, nil))

        /// A flood not started.
        public init() {}

        /// Bytes written so far.
        public var sent: Int { state.withLock { $0.sent } }
        /// `nil` while flooding; `true` when everything was written, `false` when the peer went
        /// away first.
        public var sentEverything: Bool? { state.withLock { $0.sentEverything } }

        func count(_ total: Int) { state.withLock { $0.sent = total } }
        func end(sentEverything: Bool) { state.withLock { $0.sentEverything = sentEverything } }
    }

    /// The port it listens on.
    public let port: UInt16
    private let listener: Int32
    private final class RequestLog: Sendable {
        let requests = Locked<[Request]>([])
        let accepted = Locked(0)
    }

    private let log = RequestLog()

    /// Starts serving; `respond` runs for each request on the server thread, and the
    /// connection closes when it returns.
    public convenience init(respond: @escaping @Sendable (Request, Connection) -> Void) throws {
        try self.init(keepsConnectionsOpen: false, respond: respond)
    }

    /// Starts serving; `respond` runs for each request on the server thread. With
    /// `keepsConnectionsOpen` the next request is read from the same connection after
    /// `respond` returns (HTTP/1.1 keep-alive) until the client closes it or the responder
    /// called ``Connection/closeAfterResponse()``; without, the connection closes at once.
    public init(
        keepsConnectionsOpen: Bool, respond: @escaping @Sendable (Request, Connection) -> Void
    ) throws {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var yes: Int32 = 1
        setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, listen(descriptor, 16) == 0 else { throw POSIXError(.EADDRINUSE) }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        port = UInt16(bigEndian: address.sin_port)
        listener = descriptor
        let log = log
        Thread.detachNewThread {
            while true {
                let client = accept(descriptor, nil, nil)
                if client < 0 {
                    // Shut down by deinit: only this thread closes the descriptor, so its number
                    // cannot be reused by another test's socket while this loop still uses it.
                    close(descriptor)
                    return
                }
                log.accepted.withLock { $0 += 1 }
                var received: [UInt8] = []
                while let request = Self.readRequest(client, buffer: &received, keepsOpen: keepsConnectionsOpen) {
                    log.requests.withLock { $0.append(request) }
                    let connection = Connection(descriptor: client)
                    respond(request, connection)
                    if !keepsConnectionsOpen || connection.closesAfterResponse { break }
                }
                close(client)
            }
        }
    }

    deinit {
        shutdown(listener, Int32(SHUT_RDWR))
    }

    /// `http://127.0.0.1:<port>`.
    public var url: URL { URL(string: "http://127.0.0.1:\(port)")! }
    /// Requests received so far.
    public var received: [Request] { log.requests.withLock { $0 } }
    /// TCP connections accepted so far.
    public var acceptedConnections: Int { log.accepted.withLock { $0 } }

    /// The next request on the connection; `buffer` holds bytes received past the previous
    /// one (the start of the next).
    private static func readRequest(_ descriptor: Int32, buffer: inout [UInt8], keepsOpen: Bool) -> Request? {
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            if let end = buffer.firstRange(of: Array("\r\n\r\n".utf8)) {
                let head = String(decoding: buffer[..<end.lowerBound], as: UTF8.self)
                var body = Array(buffer[end.upperBound...])
                let request = Request(head: head, body: [])
                let length = Int(request.header("Content-Length") ?? "0") ?? 0
                while body.count < length {
                    let count = recv(descriptor, &chunk, chunk.count, 0)
                    if count <= 0 { break }
                    body.append(contentsOf: chunk[0..<count])
                }
                // Kept open, bytes past the body start the next request; else they are the body's.
                guard keepsOpen else { return Request(head: head, body: body) }
                buffer = Array(body.dropFirst(length))
                return Request(head: head, body: Array(body.prefix(length)))
            }
            let count = recv(descriptor, &chunk, chunk.count, 0)
            if count <= 0 { return nil }
            buffer.append(contentsOf: chunk[0..<count])
        }
    }
}
