import SybilCore
import SybilWire

/// One message in the Agent room outbox (SPEC §6, §6.1): after submission the outbox owns the
/// caption, the ordered attachment descriptors and the stable request id — no bytes, no
/// tokens. Everything needed to send it again with the same id and timestamp after a crash.
public struct AgentOutboxEntry: Sendable, Hashable, Identifiable {
    /// Where the entry is in its delivery: queued → sending → awaiting echo → confirmed, or
    /// failed with a reason (``AgentOutboxEntry/failure``).
    public enum State: String, Sendable, Hashable, CaseIterable {
        /// Saved; waiting for its turn.
        case queued
        /// Being submitted (saved as such before the request leaves).
        case sending
        /// The server acknowledged it; the canonical echo has not been merged yet.
        case awaitingEcho = "awaiting-echo"
        /// The room merged its canonical message (or history passed its cursor).
        case confirmed
        /// It failed; ``AgentOutboxEntry/failure`` says why and whether Retry can help.
        case failed
    }

    /// What the server said it stored: the canonical message and its place.
    public struct Acknowledgement: Sendable, Hashable {
        /// The canonical message id.
        public var messageId: String
        /// The canonical message's cursor.
        public var cursor: AgentCursor

        /// Creates an acknowledgement.
        public init(messageId: String, cursor: AgentCursor) {
            self.messageId = messageId
            self.cursor = cursor
        }
    }

    /// The stable request id (a UUID from the injected generator), the same on every retry.
    public var requestId: String
    /// The caption; blank only with attachments.
    public var text: String
    /// When the user sent it, milliseconds since 1970 (kept across retries and relaunch).
    public var createdAt: Int64
    /// The uploaded attachments, in the order the user chose them.
    public var attachments: [AgentAttachment]
    /// The attachment draft this entry was made from, so the draft can tell after a crash
    /// during the handoff that it was already queued.
    public var draftId: String?
    /// Delivery state.
    public var state: State
    /// Why it failed (only in ``State/failed``).
    public var failure: AgentOutboxFailure?
    /// How many submissions were started.
    public var attempts: Int
    /// The server's acknowledgement (awaiting echo, or confirmed).
    public var acknowledgement: Acknowledgement?

    /// Creates an entry.
    public init(
        requestId: String, text: String, createdAt: Int64, attachments: [AgentAttachment] = [],
        draftId: String? = nil, state: State = .queued, failure: AgentOutboxFailure? = nil, attempts: Int = 0,
        acknowledgement: Acknowledgement? = nil
    ) {
        self.requestId = requestId
        self.text = text
        self.createdAt = createdAt
        self.attachments = attachments
        self.draftId = draftId
        self.state = state
        self.failure = failure
        self.attempts = attempts
        self.acknowledgement = acknowledgement
    }

    /// The request id.
    public var id: String { requestId }

    /// What goes to `POST agent/messages`: the same request id, text, timestamp and upload ids
    /// on every attempt.
    public var submission: AgentRoomSubmission {
        AgentRoomSubmission(
            requestId: requestId, text: text, createdAt: createdAt, attachments: attachments.map(\.uploadId))
    }

    /// Whether Retry may send it again: failed, and not a final refusal.
    public var canRetry: Bool { state == .failed && failure?.canRetry == true }

    /// A short name for the entry in sentences: its first line (at most 40 characters), or
    /// its first attachment's file name when the caption is blank.
    public var label: String {
        let line = text.split(whereSeparator: \.isNewline).first.map(String.init)?.trimmingCharacters(
            in: .whitespaces)
        if let line, !line.isEmpty {
            return line.count > 40 ? String(line.prefix(39)) + "…" : line
        }
        guard let first = attachments.first else { return "a message" }
        return attachments.count == 1 ? first.fileName : "\(first.fileName) and \(attachments.count - 1) more"
    }
}

// MARK: JSON

extension AgentOutboxEntry {
    static let keys = [
        "requestId", "text", "createdAt", "attachments", "draftId", "state", "attempts", "failure", "acknowledgement",
    ]
    /// Most attempts an entry may record.
    static let maxAttempts: Int64 = 1_000_000

    /// The entry as stored: descriptors only, never bytes or tokens (absent members omitted).
    var jsonValue: JSONValue {
        var members = [
            JSONMember("requestId", .string(requestId)), JSONMember("text", .string(text)),
            JSONMember("createdAt", .number(JSONNumber(createdAt))),
            JSONMember("attachments", .array(attachments.map(\.jsonValue))),
        ]
        if let draftId { members.append(JSONMember("draftId", .string(draftId))) }
        members += [
            JSONMember("state", .string(state.rawValue)), JSONMember("attempts", .number(JSONNumber(Int64(attempts)))),
        ]
        if let failure { members.append(JSONMember("failure", failure.jsonValue)) }
        if let acknowledgement {
            members.append(
                JSONMember(
                    "acknowledgement",
                    ["messageId": .string(acknowledgement.messageId), "cursor": acknowledgement.cursor.jsonValue]))
        }
        return .object(JSONObject(members))
    }

    /// Decodes a stored entry and checks that its members agree with its state: a failure
    /// exactly when failed, an acknowledgement when awaiting its echo (and only then or when
    /// confirmed), at least one attempt once sending started, and a message the server
    /// would take (text or attachments, at most 8 distinct attachments).
    static func decode(_ value: JSONValue, at path: JSONPath) throws(JSONError) -> AgentOutboxEntry {
        let reader = try JSONObjectReader(value, at: path)
        try reader.rejectUnknownKeys(keys)
        let stateText = try reader.string("state")
        guard let state = State(rawValue: stateText) else {
            throw .contract(
                path.appending(key: "state"),
                "must be one of \(State.allCases.map { JSONWriter.quoted($0.rawValue) }.joined(separator: ", ")), got \(JSONWriter.quoted(stateText))"
            )
        }
        let attachmentsPath = path.appending(key: "attachments")
        var attachments: [AgentAttachment] = []
        for (index, item) in try reader.array("attachments").enumerated() {
            let attachment = try AgentAttachment.decode(item, at: attachmentsPath.appending(index: index))
            guard !attachments.contains(where: { $0.uploadId == attachment.uploadId }) else {
                throw .contract(
                    attachmentsPath.appending(index: index),
                    "upload \(JSONWriter.quoted(attachment.uploadId)) is listed twice")
            }
            attachments.append(attachment)
        }
        guard attachments.count <= AgentAttachmentLimits.v1.maxFiles else {
            throw .contract(attachmentsPath, "at most \(AgentAttachmentLimits.v1.maxFiles) attachments per message")
        }
        let text = try reader.string("text")
        if attachments.isEmpty && text.allSatisfy(\.isWhitespace) {
            throw .contract(path.appending(key: "text"), "must not be blank when there are no attachments")
        }
        let attempts = Int(try reader.integer("attempts", in: 0...maxAttempts))
        let failure = try reader.optionalValue("failure").map { (value) throws(JSONError) in
            try AgentOutboxFailure.decode(value, at: path.appending(key: "failure"))
        }
        let acknowledgement = try reader.optionalValue("acknowledgement").map { (value) throws(JSONError) in
            let ack = try JSONObjectReader(value, at: path.appending(key: "acknowledgement"))
            try ack.requireExactKeys(["messageId", "cursor"])
            return Acknowledgement(
                messageId: try ack.nonEmptyString("messageId"), cursor: try ack.decode("cursor", AgentCursor.decode))
        }
        if (state == .failed) != (failure != nil) {
            throw .contract(path.appending(key: "failure"), "must be present exactly when the state is \"failed\"")
        }
        if state == .awaitingEcho && acknowledgement == nil {
            throw .contract(path.appending(key: "acknowledgement"), "is required in state \"awaiting-echo\"")
        }
        if acknowledgement != nil && state != .awaitingEcho && state != .confirmed {
            throw .contract(
                path.appending(key: "acknowledgement"),
                "is only allowed in states \"awaiting-echo\" and \"confirmed\", not \(JSONWriter.quoted(stateText))")
        }
        if [.sending, .awaitingEcho, .failed].contains(state) && attempts == 0 {
            throw .contract(
                path.appending(key: "attempts"), "must be at least 1 in state \(JSONWriter.quoted(stateText))")
        }
        return AgentOutboxEntry(
            requestId: try reader.nonEmptyString("requestId"), text: text,
            createdAt: try reader.integer("createdAt", in: 0...JSONValueReader.maxSafeInteger),
            attachments: attachments, draftId: try reader.optionalNonEmptyString("draftId"), state: state,
            failure: failure, attempts: attempts, acknowledgement: acknowledgement)
    }
}
