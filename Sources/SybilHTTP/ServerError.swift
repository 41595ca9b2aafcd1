#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Why the server could not start or keep running.
public enum ServerError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A system call failed with `errno`.
    case system(String, Int32)
    /// The host is not a numeric IPv4 or IPv6 address.
    case invalidHost(String)
    /// The store's database file at `path` cannot be used: `reason` is what SQLite or the
    /// system said (never SQL), `remedy` what the operator should do about it.
    case database(path: String, reason: String, remedy: String)

    /// One sentence for logs and the command line.
    public var description: String {
        switch self {
        case .system(let call, let code):
            let reason = String(cString: strerror(code))
            return "\(call) failed: \(reason) (errno \(code))"
        case .invalidHost(let host): return "'\(host)' is not a numeric IPv4 or IPv6 address"
        case .database(let path, let reason, let remedy):
            return "the database '\(path)' cannot be used (\(reason)): \(remedy)"
        }
    }
}
