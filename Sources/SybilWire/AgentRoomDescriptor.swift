import SybilCore

/// The answer to `GET agent/descriptor`: the room and what it can do.
///
/// Attachments are offered only when `capabilities.attachments.version` is exactly `1` with
/// well-formed limits; a missing or malformed member or another version leaves
/// ``attachments`` `nil` (text-only) instead of failing the whole descriptor. Advertised
/// limits above the v1 ceilings are clamped to them.
public struct AgentRoomDescriptor: Sendable, Hashable {
    /// Attachment support as advertised.
    public struct Attachments: Sendable, Hashable {
        /// The limits, clamped to the v1 ceilings.
        public var limits: AgentAttachmentLimits
        /// The quota snapshot, when the server sent a well-formed one.
        public var quota: AgentQuota?

        /// Creates a capability.
        public init(limits: AgentAttachmentLimits, quota: AgentQuota?) {
            self.limits = limits
            self.quota = quota
        }
    }

    /// The room's id.
    public var roomId: String
    /// The room's title.
    public var title: String
    /// Attachment support, `nil` for a text-only room.
    public var attachments: Attachments?

    /// Creates a descriptor.
    public init(roomId: String, title: String, attachments: Attachments?) {
        self.roomId = roomId
        self.title = title
        self.attachments = attachments
    }

    /// Decodes a descriptor. `room` is strict; `capabilities` is read leniently as above.
    public static func decode(_ value: JSONValue, at path: JSONPath) throws(JSONError) -> AgentRoomDescriptor {
        let reader = try JSONObjectReader(value, at: path)
        let room = try JSONObjectReader(try reader.value("room"), at: path.appending(key: "room"))
        return AgentRoomDescriptor(
            roomId: try room.nonEmptyString("roomId"), title: try room.nonBlankString("title"),
            attachments: attachmentCapability(
                reader.optionalValue("capabilities"), at: path.appending(key: "capabilities")))
    }

    /// The attachment capability in `capabilities`, or `nil` when it is missing, malformed or
    /// not version 1.
    static func attachmentCapability(_ value: JSONValue?, at path: JSONPath) -> Attachments? {
        guard let value, let capabilities = try? JSONObjectReader(value, at: path),
            let attachmentsValue = capabilities.optionalValue("attachments"),
            let attachments = try? JSONObjectReader(attachmentsValue, at: path.appending(key: "attachments")),
            (try? attachments.integer("version")) == 1,
            let limits = try? attachments.decode("limits", AgentAttachmentLimits.decode)
        else { return nil }
        let quota = try? attachments.decode("quota", AgentQuota.decode)
        return Attachments(limits: limits.clamped(), quota: quota)
    }

    /// The descriptor as contract JSON.
    public var jsonValue: JSONValue {
        var capabilities = JSONObject()
        if let attachments {
            var members = [JSONMember("version", 1), JSONMember("limits", attachments.limits.jsonValue)]
            if let quota = attachments.quota { members.append(JSONMember("quota", quota.jsonValue)) }
            capabilities = JSONObject([JSONMember("attachments", .object(JSONObject(members)))])
        }
        return ["room": ["roomId": .string(roomId), "title": .string(title)], "capabilities": .object(capabilities)]
    }
}
