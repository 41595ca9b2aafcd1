import SybilClient

/// Messages kept undelivered (``UndeliveredMessages``) as timeline entries: failed rows at the
/// end of their chat, each with the text whole and why, the oldest naming the key that takes
/// it back. Worded for where they were written by an ``UndeliveredNotice``. Pure.
public enum UndeliveredRows {
    /// The entries for `messages`, oldest first; the oldest names d unless
    /// `namesTakeBackKey` is false (d does something else first).
    public static func items<Chat>(
        _ messages: [UndeliveredMessages<Chat>.Message], wording: UndeliveredNotice, namesTakeBackKey: Bool = true
    ) -> [TimelineItem] {
        messages.enumerated().map { index, message in
            let status = status(message, namesTakeBackKey: namesTakeBackKey && index == 0, wording: wording)
            return TimelineItem(
                id: "undelivered-\(message.id)", role: .user, author: "You", body: message.text, status: status,
                tone: .error, revision: ChatTimelineAdapter.revision(message.text + status, 0))
        }
    }

    /// What a message kept undelivered says: why, and with `namesTakeBackKey` (the oldest),
    /// the key that takes it back.
    static func status<Chat>(
        _ message: UndeliveredMessages<Chat>.Message, namesTakeBackKey: Bool, wording: UndeliveredNotice
    ) -> String {
        let what =
            switch message.cause {
            case .rejected: "Not delivered, \(wording.receiver) did not take it"
            case .discarded: "Not delivered, it cannot be sent from this device"
            case .notSent: "Not sent"
            }
        let steer = if case .steer = message.mode { " (a steer)" } else { "" }
        let files =
            message.attachmentCount == 0
            ? ""
            : " · its \(message.attachmentCount) attachment\(message.attachmentCount == 1 ? " is" : "s are") not kept"
        return
            "\(what)\(steer): \(message.reason)\(files)\(namesTakeBackKey ? " · d takes it back into the composer" : "")"
    }
}
