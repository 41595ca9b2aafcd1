import SybilClient

/// The status line's sentences about workspace messages that left the outbox undelivered, as
/// the composer decided where each went (``WorkspaceChatComposer/handOverReturned(toComposerHolding:)``
/// and ``WorkspaceChatComposer/takeBackOldest(toComposerHolding:)``): ``UndeliveredNotice``
/// worded for a session. Pure; what comes from the desktop or the person is made safe and put
/// on one line.
public enum WorkspaceUndeliveredNotice {
    /// The sentence for a hand-over in the session on screen, which keeps `stillKept`
    /// messages afterwards; `nil` when nothing was kept.
    public static func handedOver(_ handOver: WorkspaceChatComposer.HandOver, stillKept: Int) -> String? {
        UndeliveredNotice.workspace.handedOver(handOver, stillKept: stillKept)
    }

    /// The sentence for a hand-over in the session titled `title`, which was left before the
    /// messages came back (the composer on screen is another session's, and is left alone)
    /// and keeps `stillKept` messages; `nil` when nothing was kept.
    public static func handedOver(
        _ handOver: WorkspaceChatComposer.HandOver, inLeftSession title: String, stillKept: Int
    ) -> String? {
        UndeliveredNotice.workspace.handedOver(handOver, inLeft: title, stillKept: stillKept)
    }

    /// The sentence after d in the session's timeline.
    public static func takenBack(_ outcome: WorkspaceChatComposer.TakeBack, stillKept: Int) -> String {
        UndeliveredNotice.workspace.takenBack(outcome, stillKept: stillKept)
    }
}
