import SybilCore
import SybilStore
import SybilTimeline
import SybilWire

/// The workspace messages that left the outbox undelivered (rejected for good by the desktop,
/// or discarded for a cause on this device), or were never sent, and whose text is not in a
/// composer, per session (SPEC §4.5): one list for every composer of an outbox, so a message
/// rejected after its chat was closed is there at the next opening.
public typealias WorkspaceUndeliveredMessages = UndeliveredMessages<WorkspaceChatKey>

extension UndeliveredMessages.Message where Chat == WorkspaceChatKey {
    /// A message kept for `entry`, which left the outbox for `cause` and `reason`.
    public init(entry: WorkspaceOutboxEntry, cause: Cause, reason: String) {
        self.init(
            id: entry.operationId, chat: entry.chat, text: entry.mutation.text, mode: entry.mode,
            attachmentCount: entry.mutation.attachments.count + entry.stagedAttachments.count, cause: cause,
            reason: reason)
    }
}

extension UndeliveredMessagesPersistence where Chat == WorkspaceChatKey {
    /// The workspace sessions' kept texts in `store` under `key`, each chat as its desktop,
    /// project and session ids.
    public static func workspaces(in store: any KeyValueStore, key: String = "workspace-undelivered") -> Self {
        UndeliveredMessagesPersistence(
            store: store, key: key, encodeChat: { .object(JSONObject($0.paramsMembers)) },
            decodeChat: { (value, path) throws(JSONError) -> WorkspaceChatKey in
                let reader = try JSONObjectReader(value, at: path)
                try reader.requireExactKeys(["desktopId", "projectId", "sessionId"])
                return try WorkspaceChatKey.decode(params: reader)
            })
    }
}
