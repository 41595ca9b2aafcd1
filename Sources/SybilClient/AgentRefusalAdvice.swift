/// The last sentence of a final refusal, naming how this front end discards the message:
/// ``AgentOutboxFailure/description`` ends a ``AgentOutboxFailure/Kind/refused`` failure with
/// "Sending it again cannot succeed; Discard it and write a new message.", and a front end
/// says which key or command Discard is (`d`, `sybil agent discard`).
public enum AgentRefusalAdvice {
    /// The generic closing sentence of a refused failure's description.
    static let genericEnding = " Sending it again cannot succeed; Discard it and write a new message."

    /// `failure`'s description; for a final refusal its closing sentence names `discard`
    /// ("press d", "run sybil agent discard abc"). Other failures are described as they are.
    public static func describe(_ failure: AgentOutboxFailure, discard: String) -> String {
        let text = failure.description
        guard failure.kind == .refused else { return text }
        let head = text.hasSuffix(genericEnding) ? String(text.dropLast(genericEnding.count)) : text
        return head + " " + sentence(discard: discard)
    }

    /// "Sending it again cannot succeed; Discard it (`discard`) and write a new message."
    public static func sentence(discard: String) -> String {
        "Sending it again cannot succeed; Discard it (\(discard)) and write a new message."
    }
}
