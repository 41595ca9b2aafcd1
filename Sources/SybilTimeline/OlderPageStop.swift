/// Why a ``WorkspaceTimeline`` stopped asking for the page before its window although the
/// desktop said older rows exist (``WorkspaceTimeline/olderPageStop``). Asking on would either
/// ask the same question again or follow empty pages without end. The stop belongs to the
/// oldest rows of the window: a newest window with available history lifts it unless it keeps
/// those rows (an overlapping newest window keeps the rows older than its own), and dropping
/// them at ``WorkspaceTimeline/maximumWindowRows`` lifts it too.
public enum OlderPageStop: Sendable, Hashable {
    /// A page brought no new rows and left the cursor where it was, or gave none: the same
    /// question would get the same answer.
    case cursorDidNotMove
    /// ``WorkspaceTimeline/maximumEmptyOlderPagesFollowed`` pages in a row brought no new rows
    /// though each moved the cursor (a desktop skipping rows it hides), and one more did too.
    case tooManyEmptyPages
}
