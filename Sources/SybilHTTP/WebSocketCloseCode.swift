/// Close codes and close payloads (RFC 6455 §5.5.1, §7.4), shared by the client and the
/// server so both sides judge a peer's close frame the same way.
public enum WebSocketCloseCode {
    /// Normal closure.
    public static let normal: UInt16 = 1000
    /// Going away.
    public static let goingAway: UInt16 = 1001
    /// Protocol error.
    public static let protocolError: UInt16 = 1002
    /// The payload does not fit its type (a text or close reason that is not UTF-8).
    public static let invalidPayload: UInt16 = 1007
    /// Policy violation: a generic code for a message that broke the endpoint's policy when no
    /// other code fits (RFC 6455 §7.4.1). It names no cause, so a peer cannot read a failed
    /// sign-in from it; Sybil's server refuses a bad token with `401` before the upgrade.
    public static let policyViolation: UInt16 = 1008
    /// Message too big.
    public static let messageTooBig: UInt16 = 1009
    /// Try again later (IANA WebSocket close code registry): the server ends the connection for
    /// a temporary condition such as overload; the client may reconnect after a backoff. Sybil's
    /// server sends it when a session leaves its inbox full too long.
    public static let tryAgainLater: UInt16 = 1013
    /// No code was present (never sent on the wire; reported for an empty close payload).
    public static let noStatus: UInt16 = 1005
    /// Attachments cannot be stored now; text messages still work (Sybil's application code).
    public static let attachmentsUnavailable: UInt16 = 4503

    /// Whether a peer may put `code` in a close frame: the assigned codes 1000–1003 and
    /// 1007–1014 (1012–1014 registered with IANA), and the registered and private ranges
    /// 3000–4999. Never below 1000, 1004–1006, 1015, nor the unassigned 1016–2999 or 5000 up.
    public static func mayBeSent(_ code: UInt16) -> Bool {
        switch code {
        case 1000...1003, 1007...1014, 3000...4999: true
        default: false
        }
    }

    /// Reads a peer's close payload: empty (code ``noStatus``, no reason), or a 2-byte code
    /// that may be sent followed by a UTF-8 reason. A 1-byte payload or a code that may not be
    /// sent throws with close code 1002, a reason that is not UTF-8 with 1007.
    public static func parse(closePayload payload: [UInt8]) throws(WebSocketProtocolError) -> (
        code: UInt16, reason: String
    ) {
        if payload.isEmpty { return (noStatus, "") }
        guard payload.count >= 2 else {
            throw WebSocketProtocolError(closeCode: protocolError, "a close payload of one byte")
        }
        let code = UInt16(payload[0]) << 8 | UInt16(payload[1])
        guard mayBeSent(code) else {
            throw WebSocketProtocolError(closeCode: protocolError, "close code \(code) may not be sent")
        }
        guard let reason = String(validating: payload[2...], as: UTF8.self) else {
            throw WebSocketProtocolError(closeCode: invalidPayload, "a close reason is not valid UTF-8")
        }
        return (code, reason)
    }

    /// A close payload: the code, then the reason (truncated to fit 125 bytes on a character
    /// boundary).
    public static func payload(code: UInt16, reason: String) -> [UInt8] {
        var reasonBytes: [UInt8] = []
        for scalar in reason.unicodeScalars {
            let encoded = Array(String(scalar).utf8)
            guard reasonBytes.count + encoded.count <= 123 else { break }
            reasonBytes.append(contentsOf: encoded)
        }
        return [UInt8(code >> 8), UInt8(code & 0xFF)] + reasonBytes
    }
}
