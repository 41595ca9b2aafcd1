import SybilClient
import SybilCore

/// The status line's sentences about workspace messages that left the outbox undelivered, as
/// the composer decided where each went (``WorkspaceChatComposer/handOverReturned(toComposerHolding:)``
/// and ``WorkspaceChatComposer/takeBackOldest(toComposerHolding:)``). Pure; what comes from
/// the desktop or the person is made safe and put on one line.
public enum WorkspaceUndeliveredNotice {
    /// The longest quote of a message's text in a sentence (the timeline row shows it whole).
    static let quoteLimit = 120

    /// Why `message` was not delivered, as the start of a sentence.
    static func why(_ message: WorkspaceUndeliveredMessages.Message) -> String {
        let reason = TerminalText.oneLine(message.reason)
        return switch message.cause {
        case .rejected: "The desktop did not take your message (\(reason))"
        case .discarded: "Your message could not be sent from this device (\(reason))"
        case .notSent: "Your message was not sent (\(reason))"
        }
    }

    /// `text` quoted on one line, cut at ``quoteLimit`` characters.
    static func quote(_ text: String) -> String {
        let line = TerminalText.oneLine(text)
        return "“" + (line.count > quoteLimit ? line.prefix(quoteLimit) + "…" : line) + "”"
    }

    /// "2 messages not delivered are kept": `count` messages, with the verb.
    static func messages(_ count: Int) -> String {
        count == 1 ? "1 message not delivered is kept" : "\(count) messages not delivered are kept"
    }

    /// The sentence for a hand-over in the session on screen, which keeps `stillKept`
    /// messages afterwards; `nil` when nothing was kept.
    public static func handedOver(_ handOver: WorkspaceChatComposer.HandOver, stillKept: Int) -> String? {
        if let restored = handOver.restored {
            let start = "\(why(restored)); it is back in the composer."
            guard stillKept > 0 else { return start }
            return start
                + " \(messages(stillKept)) at the end of the session (d in the timeline takes the oldest back)."
        }
        guard let first = handOver.kept.first else { return nil }
        let what =
            handOver.kept.count == 1
            ? "\(why(first)): \(quote(first.text))."
            : "\(handOver.kept.count) messages were not delivered (\(TerminalText.oneLine(first.reason)))."
        return what
            + " Your draft was kept; \(messages(stillKept)) at the end of the session (d in the timeline takes the oldest back into an empty composer)."
    }

    /// The sentence for a hand-over in the session titled `title`, which was left before the
    /// messages came back (the composer on screen is another session's, and is left alone)
    /// and keeps `stillKept` messages; `nil` when nothing was kept.
    public static func handedOver(
        _ handOver: WorkspaceChatComposer.HandOver, inLeftSession title: String, stillKept: Int
    ) -> String? {
        guard let first = handOver.kept.first else { return nil }
        let what =
            handOver.kept.count == 1
            ? "\(why(first)): \(quote(first.text))."
            : "\(handOver.kept.count) messages were not delivered (\(TerminalText.oneLine(first.reason)))."
        return
            "In \(TerminalText.oneLine(title)): \(what) \(messages(stillKept)) in that session (d there takes the oldest back)."
    }

    /// The sentence after d in the session's timeline.
    public static func takenBack(_ outcome: WorkspaceChatComposer.TakeBack, stillKept: Int) -> String {
        switch outcome {
        case .restored(let message):
            let start = "\(why(message)); its text is back in the composer."
            guard stillKept > 0 else { return start }
            return start + " \(stillKept) more \(stillKept == 1 ? "is" : "are") kept (d takes the oldest back)."
        case .draftInTheWay(let message):
            return "Send or clear your draft first; d then puts \(quote(message.text)) back in the composer."
        case .nothingKept:
            return "No message of this session is waiting to be taken back."
        }
    }
}
