#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A terminal call that failed: which call, on which descriptor, and the errno it set.
public enum TerminalError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The descriptor is not a terminal (`isatty` said no), so there is no raw mode to enter.
    case notATerminal(descriptor: Int32)
    /// A system call failed: its name, the descriptor it was given, and errno.
    case systemCall(name: String, descriptor: Int32, errno: Int32)

    /// What went wrong and what to do about it.
    public var description: String {
        switch self {
        case .notATerminal(let descriptor):
            return
                "descriptor \(descriptor) is not a terminal; run sybil in a terminal, or use a non-interactive command when input or output is redirected"
        case .systemCall(let name, let descriptor, let code):
            let reason = String(cString: strerror(code))
            return
                "\(name) failed on descriptor \(descriptor): \(reason) (errno \(code)); check that the terminal is still open"
        }
    }
}
