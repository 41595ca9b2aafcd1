/// What to do with the composer when the desktop rejects a message for good (SPEC §4.5): put
/// the text back when the draft can be restored, and say why when it cannot.
public enum ComposerRestore: Sendable, Hashable {
    /// Put this text back into the composer.
    case restore(text: String, message: String)
    /// Leave the composer as it is; show this message (it quotes the rejected text).
    case keepDraft(message: String)

    /// The draft can be restored when the composer is empty (nothing the user typed since
    /// would be overwritten) or already holds the same text.
    public static func decide(rejectedText: String, reason: String, currentDraft: String) -> ComposerRestore {
        let isBlank = currentDraft.unicodeScalars.allSatisfy { $0.properties.isWhitespace }
        if isBlank || currentDraft == rejectedText {
            return .restore(text: rejectedText, message: "The desktop did not take your message: \(reason)")
        }
        return .keepDraft(
            message:
                "The desktop did not take your message (\(reason)). Your new draft was kept; the message was: \"\(rejectedText)\""
        )
    }
}
