import Foundation
import SybilCore
import SybilHTTP

#if canImport(Darwin)
    import SybilURLSession
#endif

/// The live ``AgentRoomStreamConnector``: ``SocketWebSocket`` on Linux (with the injected
/// clock for its keepalive pings and the injected random source for masks and keys), and
/// `URLSessionWebSocket` on Apple platforms. Messages are limited to the 1 MiB a frame may
/// have (`AgentStreamEvent.decode(frame:)`).
public struct AgentRoomStreamSocketConnector<C: Clock>: AgentRoomStreamConnector where C.Duration == Duration {
    /// The largest message accepted.
    public static var maximumMessage: Int { 1 << 20 }

    private let clock: C
    private let random: any RandomSource
    private let trustedCertificatesFile: String?

    /// A connector whose keepalive waits on `clock`; `trustedCertificatesFile` adds a PEM
    /// authority for `wss:`.
    public init(clock: C, random: any RandomSource, trustedCertificatesFile: String? = nil) {
        self.clock = clock
        self.random = random
        self.trustedCertificatesFile = trustedCertificatesFile
    }

    public func connect(to url: URL, headers: HTTPHeaders) async throws(AgentRoomStreamConnectError)
        -> any WebSocketConnection
    {
        let options = WebSocketOptions(
            maximumMessage: Self.maximumMessage, headers: headers, trustedCertificatesFile: trustedCertificatesFile)
        #if canImport(Glibc)
            do {
                return try await SocketWebSocket.connect(to: url, options: options, random: random, clock: clock)
            } catch let error as WebSocketError {
                if case .handshake(let reason) = error, Self.status(in: reason) == 401 {
                    throw .unauthorized(reason)
                }
                throw .failed(error.description)
            } catch {
                throw .failed(String(describing: error))
            }
        #else
            return URLSessionWebSocket(url: url, options: options)
        #endif
    }

    /// The status of an `HTTP/1.1 <status>` line quoted in a handshake error.
    static func status(in reason: String) -> Int? {
        guard let range = reason.range(of: "HTTP/1.1 ") else { return nil }
        let digits = reason[range.upperBound...].prefix(3)
        guard digits.count == 3, digits.allSatisfy(\.isASCII), digits.allSatisfy(\.isNumber) else { return nil }
        return Int(digits)
    }
}
