import Foundation

/// A response that did not come in time: no head within the request's timeout, or a body
/// silent that long while its consumer waited (``SocketHTTPClient``'s; URLSession's is
/// `URLError(.timedOut)`, which ``matches(_:)`` recognises too).
public struct HTTPTimeout: Error, Sendable, Hashable, CustomStringConvertible {
    /// The timeout that passed.
    public var after: Duration

    /// A timeout after `after` without an answer.
    public init(after: Duration) {
        self.after = after
    }

    /// One sentence naming the wait.
    public var description: String {
        let seconds = after.components.seconds
        let shown = after == .seconds(seconds) ? "\(seconds) s" : "\(after)"
        return "the server sent nothing for \(shown), the request's timeout"
    }

    /// Whether `error` is an HTTP client's timeout: this, or URLSession's `URLError(.timedOut)`.
    public static func matches(_ error: any Error) -> Bool {
        error is HTTPTimeout || (error as? URLError)?.code == .timedOut
    }
}
