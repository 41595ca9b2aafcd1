import Foundation

/// How long a chat request waits for its server — for the response head, and for each silence
/// in the streamed reply — and whether a wait that runs out before any text is retried.
///
/// A server elsewhere keeps seed 004's values: 60 s for the head, 30 s of silence, and a timeout
/// before any text retried once (a container waking from zero answers the second request). A
/// server on this machine (a loopback or `localhost` base URL: Ollama, llama.cpp, vLLM, LM
/// Studio) waits ``localSeconds`` for both, because loading a model or reading a long prompt
/// on a CPU legitimately takes minutes before the first token, and a timeout there is not
/// retried: the server is busy, not cold, and a second request would only start the same
/// generation again on the same machine. A wait given by the person (`sybil ask --timeout`,
/// else the profile's `timeout`) is used for both the head and the silence; whether a timeout
/// is retried still follows where the server is.
public struct ReplyWait: Sendable, Hashable {
    /// How long the response head may take.
    public var head: Duration
    /// How long the reply may stay silent once its head came (heartbeats count).
    public var silence: Duration
    /// Whether a timeout before any text sends the request once more.
    public var retriesTimeout: Bool

    /// What a wait in seconds may be (`--timeout`, `timeout`): 1 second to 1 hour.
    public static let secondsRange = 1...3_600

    /// The wait of a server on this machine when none is given: 5 minutes.
    public static let localSeconds = 300

    /// The waits of a server elsewhere when none is given: seed 004's.
    public static let remote = ReplyWait(head: .seconds(60), silence: .seconds(30), retriesTimeout: true)

    /// The waits of a server on this machine when none is given.
    public static let local = ReplyWait(
        head: .seconds(localSeconds), silence: .seconds(localSeconds), retriesTimeout: false)

    /// A wait.
    public init(head: Duration, silence: Duration, retriesTimeout: Bool) {
        self.head = head
        self.silence = silence
        self.retriesTimeout = retriesTimeout
    }

    /// The wait for the server at `baseURL`: `seconds` when given (for the head and each
    /// silence), else the default for where the server is.
    public static func forServer(at baseURL: URL, seconds: Int?) -> ReplyWait {
        let local = isLocal(baseURL)
        guard let seconds else { return local ? .local : .remote }
        return ReplyWait(head: .seconds(seconds), silence: .seconds(seconds), retriesTimeout: !local)
    }

    /// Whether `url` names this machine: `localhost` (or a name under `.localhost`), an IPv4
    /// address in 127.0.0.0/8, `0.0.0.0` (the address a server listening on every interface
    /// prints, which a connection takes to this machine), or the IPv6 loopback or unspecified
    /// address in any spelling (`::1`, `0:0:0:0:0:0:0:1`, `::`, `::ffff:127.0.0.1`).
    public static func isLocal(_ url: URL) -> Bool {
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: false),
            var host = components.plainPercentEncodedHost?.lowercased()
        else { return false }
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        if host.hasSuffix(".") { host.removeLast() }
        if host == "localhost" || host.hasSuffix(".localhost") { return true }
        if host.contains(":") { return isLocalIPv6(host) }
        let octets = host.split(separator: ".", omittingEmptySubsequences: false)
        guard octets.count == 4, octets.allSatisfy({ octet in octet.count <= 3 && UInt8(octet) != nil }) else {
            return false
        }
        return octets[0] == "127" || octets.allSatisfy { UInt8($0) == 0 }
    }

    /// Whether `host` (an IPv6 address without brackets) is the loopback `::1`, the unspecified
    /// `::`, or an IPv4-mapped address that ``isLocal(_:)`` takes as this machine.
    private static func isLocalIPv6(_ host: String) -> Bool {
        var bytes = [UInt8](repeating: 0, count: 16)
        guard inet_pton(AF_INET6, host, &bytes) == 1 else { return false }
        if bytes[0..<15].allSatisfy({ $0 == 0 }) { return bytes[15] <= 1 }  // `::` or `::1`
        guard bytes[0..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xFF, bytes[11] == 0xFF else { return false }
        return bytes[12] == 127 || bytes[12..<16].allSatisfy { $0 == 0 }
    }
}
