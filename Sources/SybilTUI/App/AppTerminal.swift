/// The terminal the app runs on, as its runner uses it: the events it reports, its size, the
/// frames presented to it, suspending and the restore on the way out. ``TerminalSession`` is
/// the real one; tests pass a recording double.
public protocol AppTerminal: AnyObject, Sendable {
    /// Input bytes, resizes, suspend/resume and the signals, in order.
    var events: AsyncStream<TerminalEvent> { get }
    /// The current size.
    var size: TerminalSize { get }
    /// Draws a frame (only what changed since the last one).
    func present(_ grid: CellGrid, cursor: CursorPlacement?)
    /// Puts the terminal back and stops the process until it is continued.
    func suspend()
    /// Puts the terminal back for good (idempotent).
    func stop()
}

extension TerminalSession: AppTerminal {}
