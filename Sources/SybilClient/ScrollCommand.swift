/// A scroll decision of ``WorkspaceChatScreenModel`` that the front end applies as is; the
/// view decides nothing on its own.
public enum ScrollCommand: Sendable, Hashable {
    /// Leave the list where it is.
    case none
    /// Set the content offset (distance of the viewport's top from the content's top), without
    /// animation: restoring the reader's row after a prepend.
    case setOffset(Double)
    /// Move down by this many points in this frame (following the bottom).
    case step(by: Double)
    /// Show the end of the content at once (Reduce Motion, or beneath a cover).
    case jumpToBottom
}
