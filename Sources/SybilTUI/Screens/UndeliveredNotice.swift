import SybilClient
import SybilCore

/// The status line's sentences about messages kept undelivered (``UndeliveredMessages``), as
/// the screen's view model decided where each went, worded for where they were written: a
/// workspace session, the Agent room, an ordinary chat. Pure; what comes from a server or the
/// person is made safe and put on one line.
public struct UndeliveredNotice: Sendable, Hashable {
    /// Who refuses a message for good: "the desktop", "the room".
    public var receiver: String
    /// Where the kept messages are shown, after "the end of the": "session", "room", "chat".
    public var place: String

    /// Sentences naming `receiver` and `place`.
    public init(receiver: String, place: String) {
        self.receiver = receiver
        self.place = place
    }

    /// A workspace session's: the desktop refuses, the session keeps.
    public static let workspace = UndeliveredNotice(receiver: "the desktop", place: "session")
    /// The Agent room's: the room refuses and keeps.
    public static let agentRoom = UndeliveredNotice(receiver: "the room", place: "room")
    /// An ordinary chat's: nothing refuses a message for good there; the chat keeps.
    public static let chat = UndeliveredNotice(receiver: "the server", place: "chat")

    /// The longest quote of a message's text in a sentence (the timeline row shows it whole).
    static let quoteLimit = 120

    /// Why `message` was not delivered, as the start of a sentence.
    func why<Chat>(_ message: UndeliveredMessages<Chat>.Message) -> String {
        let reason = TerminalText.oneLine(message.reason)
        return switch message.cause {
        case .rejected:
            "\(receiver.prefix(1).uppercased() + receiver.dropFirst()) did not take your message (\(reason))"
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

    /// The sentence for a hand-over on the screen that shows the messages' chat, which keeps
    /// `stillKept` messages afterwards; `nil` when nothing was given back or kept.
    public func handedOver<Chat>(_ handOver: UndeliveredMessages<Chat>.HandOver, stillKept: Int) -> String? {
        if let restored = handOver.restored {
            let start = "\(why(restored)); it is back in the composer."
            guard stillKept > 0 else { return start }
            return start
                + " \(Self.messages(stillKept)) at the end of the \(place) (d in the timeline takes the oldest back)."
        }
        guard let kept = keptSentence(handOver.kept) else { return nil }
        return kept
            + " Your draft was kept; \(Self.messages(stillKept)) at the end of the \(place) (d in the timeline takes the oldest back into an empty composer)."
    }

    /// The sentence for a hand-over in the chat titled `title`, which was left before the
    /// messages came back (the composer on screen is another chat's, and is left alone) and
    /// keeps `stillKept` messages; `nil` when nothing was kept.
    public func handedOver<Chat>(
        _ handOver: UndeliveredMessages<Chat>.HandOver, inLeft title: String, stillKept: Int
    ) -> String? {
        guard let kept = keptSentence(handOver.kept) else { return nil }
        return
            "In \(TerminalText.oneLine(title)): \(kept) \(Self.messages(stillKept)) in that \(place) (d there takes the oldest back)."
    }

    /// What `kept` were and why, quoting the text of one alone; `nil` when none.
    private func keptSentence<Chat>(_ kept: [UndeliveredMessages<Chat>.Message]) -> String? {
        guard let first = kept.first else { return nil }
        return kept.count == 1
            ? "\(why(first)): \(Self.quote(first.text))."
            : "\(kept.count) messages were not delivered (\(TerminalText.oneLine(first.reason)))."
    }

    /// The sentence after the person discarded the message named `label` (it left its
    /// outbox), whose text went as `handOver` says, leaving `stillKept` messages kept.
    public func discarded<Chat>(_ label: String, _ handOver: UndeliveredMessages<Chat>.HandOver, stillKept: Int)
        -> String
    {
        let name = Self.quote(label)
        if let restored = handOver.restored {
            return restored.text.allSatisfy(\.isWhitespace)
                ? "Discarded \(name)." : "Discarded \(name); its text is back in the composer."
        }
        return
            "Discarded \(name); its text is kept at the end of the \(place), not put over a draft (\(Self.messages(stillKept)); d in the timeline takes the oldest back into an empty composer)."
    }

    /// The sentence when the list of kept messages could not be saved (`problem`, as
    /// ``UndeliveredMessages/saveProblem`` says it): they stay kept while the app runs.
    public func notSaved(_ problem: String) -> String {
        "\(TerminalText.oneLine(problem)) The \(place)s' messages not delivered stay kept until the app quits; each change to them is saved again."
    }

    /// The sentence at launch when the list of kept messages has no store (`problem`, as
    /// ``UndeliveredMessages/storeProblem`` says it): they are kept only while the app runs.
    public func notKept(_ problem: String) -> String {
        "\(TerminalText.oneLine(problem)) The \(place)s' messages not delivered are kept only until the app quits; make the data folder writable and start the app again to keep them."
    }

    /// The sentence after d in the timeline, which leaves `stillKept` messages kept.
    public func takenBack<Chat>(_ outcome: UndeliveredMessages<Chat>.TakeBack, stillKept: Int) -> String {
        switch outcome {
        case .restored(let message):
            let start = "\(why(message)); its text is back in the composer."
            guard stillKept > 0 else { return start }
            return start + " \(stillKept) more \(stillKept == 1 ? "is" : "are") kept (d takes the oldest back)."
        case .draftInTheWay(let message):
            return "Send or clear your draft first; d then puts \(Self.quote(message.text)) back in the composer."
        case .nothingKept:
            return "No message of this \(place) is waiting to be taken back."
        }
    }
}
