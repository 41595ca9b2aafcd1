#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A signal the terminal layer forwards to the app.
public enum TerminalSignal: Sendable, Hashable {
    /// SIGWINCH: the window changed size.
    case resize
    /// SIGTSTP: asked to stop (Ctrl-Z from a shell, or `kill -TSTP`).
    case suspend
    /// SIGCONT: continued after a stop.
    case resume
    /// SIGINT.
    case interrupt
    /// SIGTERM.
    case terminate
    /// SIGHUP: the terminal went away.
    case hangup

    /// The signal number it comes from.
    public var number: Int32 {
        switch self {
        case .resize: SIGWINCH
        case .suspend: SIGTSTP
        case .resume: SIGCONT
        case .interrupt: SIGINT
        case .terminate: SIGTERM
        case .hangup: SIGHUP
        }
    }

    /// The forwarded signal for a signal number, if it is one.
    public init?(number: Int32) {
        switch number {
        case SIGWINCH: self = .resize
        case SIGTSTP: self = .suspend
        case SIGCONT: self = .resume
        case SIGINT: self = .interrupt
        case SIGTERM: self = .terminate
        case SIGHUP: self = .hangup
        default: return nil
        }
    }

    /// Every forwarded signal.
    public static let all: [TerminalSignal] = [.resize, .suspend, .resume, .interrupt, .terminate, .hangup]
}
