import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The step ``RefusingPort`` and ``FullBacklogPort`` share: a TCP socket bound to a fresh port
/// of a numeric IPv4 `host`, with the address the kernel gave it.
enum LoopbackSocket {
    /// A new socket bound to port 0 of `host`, and its bound address (port filled in). Throws
    /// (closing the socket) when it cannot be made or bound.
    static func bound(host: String) throws -> (descriptor: Int32, address: sockaddr_in) {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw POSIXError(.EMFILE) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr(host)
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) }
        }
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        guard bound == 0, named == 0 else {
            close(descriptor)
            throw POSIXError(.EADDRINUSE)
        }
        return (descriptor, address)
    }
}
