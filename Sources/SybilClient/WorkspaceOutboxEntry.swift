import SybilCore
import SybilTimeline
import SybilWire

/// One message in the phone's outbox copy (SPEC §4.5): everything needed to send it again
/// with the same ids after a timeout or a crash.
public struct WorkspaceOutboxEntry: Sendable, Hashable {
    /// Where the entry is in its delivery.
    public enum Status: String, Sendable, Hashable, CaseIterable {
        /// Persisted; no attempt has finished yet.
        case queued
        /// An attempt timed out or failed in transit; it is retried with the same ids.
        case awaitingRetry = "awaiting-retry"
        /// The desktop accepted it and owns delivery; kept until history carries it.
        case accepted
    }

    /// The edit to send: its own id, the text and the finished upload ids.
    public struct Mutation: Sendable, Hashable {
        /// Identifies this version of the message (a retry sends the same one).
        public var mutationId: String
        /// What the user wrote.
        public var text: String
        /// Finished attachment upload ids, in order.
        public var attachments: [String]

        /// Creates a mutation.
        public init(mutationId: String, text: String, attachments: [String] = []) {
            self.mutationId = mutationId
            self.text = text
            self.attachments = attachments
        }
    }

    /// The chat the message goes to.
    public var chat: WorkspaceChatKey
    /// The submission's identity, stable across retries and relaunches.
    public var operationId: String
    /// Delivery state.
    public var status: Status
    /// Whether the desktop accepted the operation (it then owns delivery).
    public var acceptedByDesktop: Bool
    /// The pending mutation.
    public var mutation: Mutation
    /// New turn or steer (with the run it steers).
    public var mode: WorkspaceSendMode
    /// When the user wrote it, milliseconds since the epoch.
    public var createdAt: Int64
    /// Attachments kept in the outbox that are not uploaded yet, in message order. They are
    /// uploaded before the message; each finished upload's id moves to the end of
    /// `mutation.attachments` (saved before the next upload starts), so the message lists the
    /// ids in the order the user attached the files.
    public var stagedAttachments: [WorkspaceStagedAttachment]

    /// Creates an entry.
    public init(
        chat: WorkspaceChatKey, operationId: String, status: Status = .queued, acceptedByDesktop: Bool = false,
        mutation: Mutation, mode: WorkspaceSendMode, createdAt: Int64,
        stagedAttachments: [WorkspaceStagedAttachment] = []
    ) {
        self.chat = chat
        self.operationId = operationId
        self.status = status
        self.acceptedByDesktop = acceptedByDesktop
        self.mutation = mutation
        self.mode = mode
        self.createdAt = createdAt
        self.stagedAttachments = stagedAttachments
    }

    /// The call key that makes the desktop run this submission at most once.
    public var callKey: String { submission.callKey }

    /// What goes to the desktop: the same ids on every attempt.
    public var submission: WorkspaceSubmission {
        WorkspaceSubmission(
            chat: chat, operationId: operationId, mutationId: mutation.mutationId, mode: mode, text: mutation.text,
            attachments: mutation.attachments)
    }

    /// The local echo the chat shows until history carries the message.
    public var pendingMessage: PendingMessage {
        PendingMessage(operationId: operationId, text: mutation.text, createdAt: createdAt)
    }
}

// MARK: JSON

extension WorkspaceOutboxEntry {
    /// The most attachments one entry may keep waiting in the outbox: a bound for hostile
    /// input when the entry is read back, so the composer and the outbox refuse more before
    /// anything is staged or saved.
    public static let maximumStagedAttachments = 64

    static let keys = ["operationId", "status", "acceptedByDesktop", "mutation", "mode", "createdAt"]

    /// Present only while attachments wait in the outbox; an entry without it is the format
    /// written before attachments could wait, and still reads.
    static let stagedAttachmentsKey = "stagedAttachments"

    /// The entry as stored (the chat is stored once per scope, not per entry).
    var jsonValue: JSONValue {
        var mode: JSONValue = ["kind": "send"]
        if case .steer(let runId) = self.mode { mode = ["kind": "steer", "activeRunId": .string(runId)] }
        var members = [
            JSONMember("operationId", .string(operationId)),
            JSONMember("status", .string(status.rawValue)),
            JSONMember("acceptedByDesktop", .bool(acceptedByDesktop)),
            JSONMember(
                "mutation",
                [
                    "mutationId": .string(mutation.mutationId), "text": .string(mutation.text),
                    "attachments": .array(mutation.attachments.map(JSONValue.string)),
                ]),
            JSONMember("mode", mode),
            JSONMember("createdAt", .number(JSONNumber(createdAt))),
        ]
        if !stagedAttachments.isEmpty {
            members.append(JSONMember(Self.stagedAttachmentsKey, .array(stagedAttachments.map(\.jsonValue))))
        }
        return .object(JSONObject(members))
    }

    static func decode(_ value: JSONValue, at path: JSONPath, chat: WorkspaceChatKey) throws(JSONError) -> Self {
        let reader = try JSONObjectReader(value, at: path)
        let hasStaged = reader.optionalValue(stagedAttachmentsKey) != nil
        try reader.requireExactKeys(hasStaged ? keys + [stagedAttachmentsKey] : keys)
        var staged: [WorkspaceStagedAttachment] = []
        if hasStaged {
            let stagedPath = path.appending(key: stagedAttachmentsKey)
            let items = try reader.array(stagedAttachmentsKey)
            guard !items.isEmpty else { throw .contract(stagedPath, "must not be empty when present") }
            guard items.count <= maximumStagedAttachments else {
                throw .contract(stagedPath, "holds at most \(maximumStagedAttachments) attachments, got \(items.count)")
            }
            for (index, item) in items.enumerated() {
                staged.append(try WorkspaceStagedAttachment.decode(item, at: stagedPath.appending(index: index)))
            }
        }
        let statusText = try reader.string("status")
        guard let status = Status(rawValue: statusText) else {
            throw .contract(path.appending(key: "status"), "unknown status \(JSONWriter.quoted(statusText))")
        }
        let mutation = try JSONObjectReader(try reader.value("mutation"), at: path.appending(key: "mutation"))
        try mutation.requireExactKeys(["mutationId", "text", "attachments"])
        var attachments: [String] = []
        for (index, item) in try mutation.array("attachments").enumerated() {
            attachments.append(
                try JSONValueReader.string(
                    item, at: mutation.path.appending(key: "attachments").appending(index: index)))
        }
        let modeReader = try JSONObjectReader(try reader.value("mode"), at: path.appending(key: "mode"))
        let mode: WorkspaceSendMode
        switch try modeReader.string("kind") {
        case "send":
            try modeReader.requireExactKeys(["kind"])
            mode = .send
        case "steer":
            try modeReader.requireExactKeys(["kind", "activeRunId"])
            mode = .steer(activeRunId: try modeReader.nonEmptyString("activeRunId"))
        case let other:
            throw .contract(modeReader.path.appending(key: "kind"), "unknown send mode \(JSONWriter.quoted(other))")
        }
        return WorkspaceOutboxEntry(
            chat: chat, operationId: try reader.nonEmptyString("operationId"), status: status,
            acceptedByDesktop: try reader.bool("acceptedByDesktop"),
            mutation: Mutation(
                mutationId: try mutation.nonEmptyString("mutationId"), text: try mutation.string("text"),
                attachments: attachments),
            mode: mode, createdAt: try reader.integer("createdAt", in: JSONValueReader.safeIntegerRange),
            stagedAttachments: staged)
    }
}
