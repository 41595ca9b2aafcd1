#if canImport(Glibc)
    import CEpoll
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Socket calls the event loop needs, kept in one place: the non-blocking listener, accept,
/// and per-connection options.
enum ListeningSocket {
    /// A non-blocking listening socket on `host` (numeric IPv4 or IPv6) and `port` (0: any
    /// free port); returns the descriptor and the port actually bound.
    static func open(host: String, port: Int, backlog: Int32) throws(ServerError) -> (descriptor: Int32, port: Int) {
        var address4 = sockaddr_in()
        var address6 = sockaddr_in6()
        let isIPv6: Bool
        if inet_pton(AF_INET, host, &address4.sin_addr) == 1 {
            isIPv6 = false
        } else if inet_pton(AF_INET6, host, &address6.sin6_addr) == 1 {
            isIPv6 = true
        } else {
            throw .invalidHost(host)
        }
        guard (0...65_535).contains(port) else { throw .system("bind (port \(port))", EINVAL) }
        #if canImport(Glibc)
            let streamType = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        #else
            let streamType = SOCK_STREAM
        #endif
        let descriptor = socket(isIPv6 ? AF_INET6 : AF_INET, streamType, 0)
        guard descriptor >= 0 else { throw .system("socket", errno) }
        var one: Int32 = 1
        setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        let bound: Int32
        if isIPv6 {
            address6.sin6_family = sa_family_t(AF_INET6)
            address6.sin6_port = in_port_t(UInt16(port).bigEndian)
            bound = withUnsafePointer(to: &address6) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in6>.size))
                }
            }
        } else {
            address4.sin_family = sa_family_t(AF_INET)
            address4.sin_port = in_port_t(UInt16(port).bigEndian)
            bound = withUnsafePointer(to: &address4) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        }
        guard bound == 0 else {
            let code = errno
            close(descriptor)
            throw .system("bind \(host):\(port)", code)
        }
        guard listen(descriptor, backlog) == 0 else {
            let code = errno
            close(descriptor)
            throw .system("listen", code)
        }
        setNonBlocking(descriptor)
        return (descriptor, boundPort(descriptor))
    }

    /// Accepts one pending connection, non-blocking, or `nil` when none is waiting.
    static func accept(_ listener: Int32) -> Int32? {
        #if canImport(Glibc)
            // Non-blocking and close-on-exec from the start: a process spawned meanwhile never
            // inherits it.
            let descriptor = sybil_accept(listener)
            guard descriptor >= 0 else { return nil }
        #else
            let descriptor = Darwin.accept(listener, nil, nil)
            guard descriptor >= 0 else { return nil }
            var one: Int32 = 1
            setsockopt(descriptor, SOL_SOCKET, SO_NOSIGPIPE, &one, socklen_t(MemoryLayout<Int32>.size))
            setNonBlocking(descriptor)
        #endif
        var one: Int32 = 1
        setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        return descriptor
    }

    /// Sends what it can of `bytes`; returns the count sent, 0 when the socket is full, or
    /// `nil` when the connection failed.
    static func send(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer) -> Int? {
        #if canImport(Glibc)
            let flags = Int32(MSG_NOSIGNAL)
        #else
            let flags: Int32 = 0
        #endif
        while true {
            let sent = systemSend(descriptor, bytes.baseAddress, bytes.count, flags)
            if sent >= 0 { return sent }
            switch errno {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: return 0
            default: return nil
            }
        }
    }

    /// Raises the soft open-file limit to the hard one, so many connections fit.
    static func raiseDescriptorLimit() {
        var limit = rlimit()
        #if canImport(Glibc)
            let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
        #else
            let resource = RLIMIT_NOFILE
        #endif
        guard getrlimit(resource, &limit) == 0, limit.rlim_cur < limit.rlim_max else { return }
        limit.rlim_cur = limit.rlim_max
        _ = setrlimit(resource, &limit)
    }

    private static func setNonBlocking(_ descriptor: Int32) {
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
    }

    private static func boundPort(_ descriptor: Int32) -> Int {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        if Int32(storage.ss_family) == AF_INET6 {
            return withUnsafePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) {
                    Int(UInt16(bigEndian: $0.pointee.sin6_port))
                }
            }
        }
        return withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin_port)) }
        }
    }
}

#if canImport(Glibc)
    private func systemSend(_ fd: Int32, _ buffer: UnsafeRawPointer?, _ count: Int, _ flags: Int32) -> Int {
        Glibc.send(fd, buffer, count, flags)
    }
#else
    private func systemSend(_ fd: Int32, _ buffer: UnsafeRawPointer?, _ count: Int, _ flags: Int32) -> Int {
        Darwin.send(fd, buffer, count, flags)
    }
#endif
