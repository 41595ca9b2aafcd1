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
        let (descriptor, address) = try LoopbackSocket.bound(host: host)
        self.descriptor = descriptor
        self.host = host
        port = UInt16(bigEndian: address.sin_port)
    }

    deinit { close(descriptor) }

    /// `http://<host>:<port>`.
    public var url: URL { URL(string: "http://\(host):\(port)")! }
}
