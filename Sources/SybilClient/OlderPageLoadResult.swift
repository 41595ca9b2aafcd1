/// How one ``WorkspaceChatHost/loadOlderPage(_:willPrepend:)`` ended.
public enum OlderPageLoadResult: Sendable, Hashable {
    /// Rows were prepended before the window.
    case added
    /// The desktop answered but no row was prepended: the page brought nothing new (it may
    /// have stopped older loading), or it no longer continued the window, or the permit was
    /// for another cursor and nothing was asked.
    case nothingAdded
    /// The desktop could not be asked or answered with an error; the host's `lastLoadError`
    /// says why. The screen model waits before asking again (``SybilTimeline/OlderPageTrigger``).
    case failed
}
