#if canImport(CEpoll)
    import CEpoll
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Readiness notification for the event loop: epoll on Linux, `poll(2)` elsewhere. Each
/// descriptor is registered with a token; ``wait(timeoutMilliseconds:)`` returns the tokens
/// that are ready. ``wake()`` may be called from any thread to end a wait early.
///
/// Confined to the loop thread except for ``wake()``.
final class EventPoller: @unchecked Sendable {
    /// One ready descriptor.
    struct Readiness {
        var token: UInt64
        var readable: Bool
        var writable: Bool
        var hungUp: Bool
        /// The peer closed its sending half (Linux: reported even while input is not read,
        /// when asked for with `halfClose`).
        var peerHalfClosed = false
    }

    /// The token reported for a ``wake()``.
    static let wakeToken = UInt64.max

    #if canImport(CEpoll)
        private let epoll: Int32
        private let wakeDescriptor: Int32
        private var tokens = [UInt64](repeating: 0, count: 256)
        private var flags = [UInt32](repeating: 0, count: 256)
    #else
        private let wakePipe: (read: Int32, write: Int32)
        private var interests: [Int32: (token: UInt64, readable: Bool, writable: Bool)] = [:]
    #endif

    /// Creates the poller; throws when the system refuses a descriptor.
    init() throws(ServerError) {
        #if canImport(CEpoll)
            epoll = sybil_epoll_create()
            guard epoll >= 0 else { throw .system("epoll_create1", errno) }
            wakeDescriptor = sybil_eventfd()
            guard wakeDescriptor >= 0 else {
                close(epoll)
                throw .system("eventfd", errno)
            }
            guard sybil_epoll_control(epoll, sybil_epoll_add(), wakeDescriptor, 1, 0, Self.wakeToken) == 0 else {
                throw .system("epoll_ctl", errno)
            }
        #else
            var descriptors: [Int32] = [0, 0]
            guard pipe(&descriptors) == 0 else { throw .system("pipe", errno) }
            for descriptor in descriptors { _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK) }
            wakePipe = (descriptors[0], descriptors[1])
        #endif
    }

    deinit {
        #if canImport(CEpoll)
            close(wakeDescriptor)
            close(epoll)
        #else
            close(wakePipe.read)
            close(wakePipe.write)
        #endif
    }

    /// Starts watching `descriptor`.
    func add(_ descriptor: Int32, token: UInt64, readable: Bool, writable: Bool) {
        watch(descriptor, token: token, readable: readable, writable: writable, adding: true)
    }

    /// Changes what `descriptor` is watched for; with `halfClose` and not `readable`, the
    /// peer's half-close is still reported (Linux; elsewhere it is seen once input is read).
    func modify(_ descriptor: Int32, token: UInt64, readable: Bool, writable: Bool, halfClose: Bool = false) {
        watch(descriptor, token: token, readable: readable, writable: writable, adding: false, halfClose: halfClose)
    }

    private func watch(
        _ descriptor: Int32, token: UInt64, readable: Bool, writable: Bool, adding: Bool, halfClose: Bool = false
    ) {
        #if canImport(CEpoll)
            let operation = adding ? sybil_epoll_add() : sybil_epoll_modify()
            let input: Int32 = readable ? 1 : halfClose ? 2 : 0
            _ = sybil_epoll_control(epoll, operation, descriptor, input, writable ? 1 : 0, token)
        #else
            interests[descriptor] = (token, readable, writable)
        #endif
    }

    /// Stops watching `descriptor` (before it is closed).
    func remove(_ descriptor: Int32) {
        #if canImport(CEpoll)
            _ = sybil_epoll_control(epoll, sybil_epoll_remove(), descriptor, 0, 0, 0)
        #else
            interests[descriptor] = nil
        #endif
    }

    /// Ends the current or next wait early; safe from any thread.
    func wake() {
        var one: UInt64 = 1
        #if canImport(CEpoll)
            _ = write(wakeDescriptor, &one, 8)
        #else
            _ = write(wakePipe.write, &one, 1)
        #endif
    }

    /// Waits until a descriptor is ready, a wake, or the timeout.
    func wait(timeoutMilliseconds: Int32) -> [Readiness] {
        #if canImport(CEpoll)
            let count = tokens.withUnsafeMutableBufferPointer { tokenBuffer in
                flags.withUnsafeMutableBufferPointer { flagBuffer in
                    sybil_epoll_wait(
                        epoll, tokenBuffer.baseAddress, flagBuffer.baseAddress, Int32(tokenBuffer.count),
                        timeoutMilliseconds)
                }
            }
            guard count > 0 else { return [] }
            var ready: [Readiness] = []
            ready.reserveCapacity(Int(count))
            for index in 0..<Int(count) {
                if tokens[index] == Self.wakeToken {
                    var value: UInt64 = 0
                    _ = read(wakeDescriptor, &value, 8)
                    continue
                }
                let flag = flags[index]
                ready.append(
                    Readiness(
                        token: tokens[index], readable: flag & 1 != 0, writable: flag & 2 != 0, hungUp: flag & 4 != 0,
                        peerHalfClosed: flag & 8 != 0))
            }
            return ready
        #else
            var descriptors = [pollfd(fd: wakePipe.read, events: Int16(POLLIN), revents: 0)]
            var order: [UInt64] = [Self.wakeToken]
            for (descriptor, interest) in interests {
                var events: Int16 = 0
                if interest.readable { events |= Int16(POLLIN) }
                if interest.writable { events |= Int16(POLLOUT) }
                descriptors.append(pollfd(fd: descriptor, events: events, revents: 0))
                order.append(interest.token)
            }
            let count = poll(&descriptors, nfds_t(descriptors.count), timeoutMilliseconds)
            guard count > 0 else { return [] }
            var ready: [Readiness] = []
            for (index, entry) in descriptors.enumerated() where entry.revents != 0 {
                if index == 0 {
                    var drain = [UInt8](repeating: 0, count: 64)
                    _ = read(wakePipe.read, &drain, drain.count)
                    continue
                }
                ready.append(
                    Readiness(
                        token: order[index], readable: entry.revents & Int16(POLLIN) != 0,
                        writable: entry.revents & Int16(POLLOUT) != 0,
                        hungUp: entry.revents & Int16(POLLHUP | POLLERR) != 0))
            }
            return ready
        #endif
    }
}
