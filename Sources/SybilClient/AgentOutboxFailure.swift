import SybilCore
import SybilWire

/// Why an Agent room outbox entry failed, kept with the entry (and across relaunch) so its
/// bubble says what happened and what to do. The server's message, code, quota and
/// Retry-After survive; nothing is retried automatically.
public struct AgentOutboxFailure: Sendable, Hashable, CustomStringConvertible {
    /// The family of failure, which decides what a person can do about it.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// The outcome is unknown (no answer, a 5xx, an answer that broke the contract, or the
        /// app stopped mid-send). Retry sends the same request id; the server never stores it
        /// twice.
        case interrupted
        /// The server refused the message for good (400, 409, 413, …). Sending it again
        /// cannot succeed: Discard it.
        case refused
        /// Too many messages (429): Retry after the wait the server named.
        case rateLimited = "rate-limited"
        /// The server cannot take it now (503, 507 with its quota): Retry later.
        case unavailable
        /// The server answered with a receipt that does not acknowledge exactly the
        /// submitted attachments in order. A matching canonical echo still confirms it.
        case unacknowledged
        /// It never reached the server: no connection was made. Retry sends it.
        case notSent = "not-sent"
        /// Any other answer that may succeed later (401 after the session ended, 408, a
        /// redirect): Retry.
        case other
    }

    /// Longest server message kept (a hostile server could send megabytes).
    public static let maxMessageLength = 1_000

    /// The family.
    public var kind: Kind
    /// The server's message, or what went wrong in transit (at most ``maxMessageLength``
    /// characters).
    public var message: String
    /// The HTTP status, when the server answered.
    public var status: Int?
    /// The server's machine-readable code, e.g. `too_large`.
    public var code: String?
    /// Seconds the server asked to wait (`Retry-After` or `details.retryAfterSeconds`).
    public var retryAfterSeconds: Int?
    /// The storage quota a 507 carried.
    public var quota: AgentQuota?

    /// Creates a failure, made storable whatever a server sent (what is saved must read back,
    /// or the entry would leave the outbox at the next launch): `message` is cut to
    /// ``maxMessageLength`` characters and a blank one says the status instead; a status outside
    /// 100…599, an empty code and a wait outside 0…86,400 s are left out.
    public init(
        kind: Kind, message: String, status: Int? = nil, code: String? = nil, retryAfterSeconds: Int? = nil,
        quota: AgentQuota? = nil
    ) {
        self.kind = kind
        let status = status.flatMap { (100...599).contains($0) ? $0 : nil }
        let said =
            message.allSatisfy(\.isWhitespace)
            ? "The server gave no reason\(status.map { " (HTTP \($0))" } ?? "")." : message
        self.message = said.count > Self.maxMessageLength ? String(said.prefix(Self.maxMessageLength)) : said
        self.status = status
        self.code = code.flatMap { $0.isEmpty ? nil : $0 }
        self.retryAfterSeconds = retryAfterSeconds.flatMap { (0...86_400).contains($0) ? $0 : nil }
        self.quota = quota
    }

    /// Whether Retry (and Resend all) may send the entry again; a refusal or an
    /// unacknowledged receipt needs Discard instead.
    public var canRetry: Bool { kind != .refused && kind != .unacknowledged }

    /// The failure a submission's error means (SPEC §6.1: server messages, codes, quota and
    /// Retry-After survive 409, 413, 429 and 507).
    public static func from(_ error: AgentRoomError) -> AgentOutboxFailure {
        let status = error.status
        let message: String
        switch error {
        case .rejected(_, let body, _): message = body.message
        case .transport(let reason), .notSent(let reason): message = reason
        case .malformedAnswer(let reason): message = "the answer broke the contract: \(reason)"
        case .redirectRefused(let status): message = "the server answered with a redirect (HTTP \(status))"
        case .integrity(let reason): message = reason
        }
        let kind: Kind
        if status == 429 {
            kind = .rateLimited
        } else if status == 503 || status == 507 {
            kind = .unavailable
        } else if error.isFinalRefusal {
            kind = .refused
        } else if error.isAmbiguous {
            kind = .interrupted
        } else if case .notSent = error {
            kind = .notSent
        } else {
            kind = .other
        }
        return AgentOutboxFailure(
            kind: kind, message: message, status: status, code: error.code,
            retryAfterSeconds: error.retryAfterSeconds, quota: error.quota)
    }

    /// The failure of an entry that was being sent when the app stopped.
    public static let relaunched = AgentOutboxFailure(
        kind: .interrupted, message: "The app stopped before the server answered.")

    /// The failure of a queued entry after the device restarted while the outbox was sending:
    /// the record that it left may have been lost with the restart, so it may have been sent.
    public static let restartedWhileSending = AgentOutboxFailure(
        kind: .interrupted, message: "The device restarted while messages were being sent; this one may have left.")

    /// The failure of an entry the server acknowledged before it lost its history (it
    /// restarted without it, or was restored from an older copy): the server the room follows
    /// now may not have it. Retry sends it again with its request id.
    public static let historyLost = AgentOutboxFailure(
        kind: .interrupted, message: "The server lost its history after it acknowledged this message.")

    /// The failure of a receipt that does not acknowledge exactly `submission`.
    public static func unacknowledged(_ receipt: AgentRoomReceipt, for submission: AgentRoomSubmission)
        -> AgentOutboxFailure
    {
        let message: String
        if receipt.requestId != submission.requestId {
            message =
                "The server answered for request \(JSONWriter.quoted(receipt.requestId)), not for \(JSONWriter.quoted(submission.requestId))."
        } else {
            message =
                "The server acknowledged attachments \(Self.list(receipt.attachments)) but the message has \(Self.list(submission.attachments))."
        }
        return AgentOutboxFailure(kind: .unacknowledged, message: message)
    }

    private static func list(_ ids: [String]) -> String {
        "[" + ids.map { JSONWriter.quoted($0) }.joined(separator: ", ") + "]"
    }

    /// What happened and what to do, for the entry's bubble.
    public var description: String {
        var text = message.hasSuffix(".") ? String(message.dropLast()) : message
        if let status {
            text += " (HTTP \(status)" + (code.map { ", \($0)" } ?? "") + ")"
        }
        if let quota { text += " — \(quota.usedBytes) of \(quota.limitBytes) bytes used" }
        if !text.hasSuffix("?") && !text.hasSuffix("!") { text += "." }
        switch kind {
        case .interrupted:
            text += " It may or may not have arrived; Retry sends it again with the same request id."
        case .notSent:
            text += " It never reached the server; Retry sends it."
        case .refused:
            text += " Sending it again cannot succeed; Discard it and write a new message."
        case .rateLimited:
            text += retryAfterSeconds.map { " Retry after \($0) s." } ?? " Retry in a moment."
        case .unavailable:
            text +=
                quota != nil
                ? " Free some attachment storage, then Retry."
                : (retryAfterSeconds.map { " Retry after \($0) s." } ?? " Retry later.")
        case .unacknowledged:
            text += " It may be incomplete; Discard it, or wait for the room to show it."
        case .other:
            text += retryAfterSeconds.map { " Retry after \($0) s." } ?? " Retry when the problem is fixed."
        }
        return text
    }
}

// MARK: JSON

extension AgentOutboxFailure {
    static let keys = ["kind", "message", "status", "code", "retryAfterSeconds", "quota"]

    /// The failure as stored (absent members omitted).
    var jsonValue: JSONValue {
        var members = [JSONMember("kind", .string(kind.rawValue)), JSONMember("message", .string(message))]
        if let status { members.append(JSONMember("status", .number(JSONNumber(Int64(status))))) }
        if let code { members.append(JSONMember("code", .string(code))) }
        if let retryAfterSeconds {
            members.append(JSONMember("retryAfterSeconds", .number(JSONNumber(Int64(retryAfterSeconds)))))
        }
        if let quota { members.append(JSONMember("quota", quota.jsonValue)) }
        return .object(JSONObject(members))
    }

    /// Decodes a stored failure: a known kind, a message of at most ``maxMessageLength``
    /// characters, a status of 100…599, a wait of 0…86,400 s.
    static func decode(_ value: JSONValue, at path: JSONPath) throws(JSONError) -> AgentOutboxFailure {
        let reader = try JSONObjectReader(value, at: path)
        try reader.rejectUnknownKeys(keys)
        let kindText = try reader.string("kind")
        guard let kind = Kind(rawValue: kindText) else {
            throw .contract(
                path.appending(key: "kind"),
                "must be one of \(Kind.allCases.map { JSONWriter.quoted($0.rawValue) }.joined(separator: ", ")), got \(JSONWriter.quoted(kindText))"
            )
        }
        let message = try reader.nonBlankString("message")
        guard message.count <= maxMessageLength else {
            throw .contract(path.appending(key: "message"), "must be at most \(maxMessageLength) characters")
        }
        let status = try reader.optionalValue("status").map { (value) throws(JSONError) in
            Int(try JSONValueReader.integer(value, at: path.appending(key: "status"), in: 100...599))
        }
        let retryAfter = try reader.optionalValue("retryAfterSeconds").map { (value) throws(JSONError) in
            Int(try JSONValueReader.integer(value, at: path.appending(key: "retryAfterSeconds"), in: 0...86_400))
        }
        let quota = try reader.optionalValue("quota").map { (value) throws(JSONError) in
            try AgentQuota.decode(value, at: path.appending(key: "quota"))
        }
        return AgentOutboxFailure(
            kind: kind, message: message, status: status, code: try reader.optionalNonEmptyString("code"),
            retryAfterSeconds: retryAfter, quota: quota)
    }
}
