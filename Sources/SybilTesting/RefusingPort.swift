import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A loopback port that refuses every connection for as long as this value lives: a socket
/// bound to it without listening, so no other test's server can be handed the same port
/// while a test expects the refusal (a freed port can be, when tests run in parallel).
public final class RefusingPort: Sendable {
    /// The refused port on ``host``.
    public let port: UInt16
    /// The numeric IPv4 loopback address the port is bound on.
    public let host: String
    private let descriptor: Int32

    /// Binds a fresh port on `host` (a numeric IPv4 address, 127.0.0.1 unless given) and
    /// never listens on it. A test that needs the port free again later (a server started
    /// there once the refusal was seen) binds an address of its own in 127.0.0.0/8: other
    /// tests' servers bind 127.0.0.1, so none of them can take the port in between.
    public init(host: String = "127.0.0.1") throws {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw POSIXError(.EMFILE) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr(host)
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        guard bound == 0, named == 0 else {
            close(descriptor)
            throw POSIXError(.EADDRINUSE)
        }
        self.descriptor = descriptor
        self.host = host
        port = UInt16(bigEndian: address.sin_port)
    }

    deinit { close(descriptor) }

    /// `http://<host>:<port>`.
    public var url: URL { URL(string: "http://\(host):\(port)")! }
}
