/// Why a ``WorkspaceTimeline`` stopped asking for the page before its window although the
/// desktop said older rows exist (``WorkspaceTimeline/olderPageStop``). Asking on would either
/// ask the same question again or follow empty pages without end; the next newest window with
/// available history lifts the stop.
public enum OlderPageStop: Sendable, Hashable {
    /// A page brought no new rows and left the cursor where it was, or gave none: the same
    /// question would get the same answer.
    case cursorDidNotMove
    /// ``WorkspaceTimeline/maximumEmptyOlderPagesFollowed`` pages in a row brought no new rows
    /// though each moved the cursor (a desktop skipping rows it hides), and one more did too.
    case tooManyEmptyPages
}
