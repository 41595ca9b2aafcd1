/// What a terminal session reports to the app.
public enum TerminalEvent: Sendable, Hashable {
    /// Bytes typed, pasted or answered by the terminal, for the input decoder.
    case input([UInt8])
    /// The window changed size; the next frame repaints the whole screen.
    case resize(TerminalSize)
    /// The process is about to stop (SIGTSTP); the terminal has been put back.
    case suspend
    /// The process continued (SIGCONT); raw mode and the modes are on again and the next frame
    /// repaints the whole screen.
    case resume
    /// SIGINT arrived (raw mode turns Ctrl-C into input, so this came from `kill`).
    case interrupt
    /// SIGTERM or SIGHUP arrived: save what needs saving and call ``TerminalSession/stop()``.
    case terminate
    /// The input ended (the terminal went away or input hit its end).
    case inputClosed
}
