import SybilCore
import SybilWire

/// The saved Agent room draft (SPEC §6.1): its identity, the caption, the upload ids in
/// selection order and, for uploaded items, the server's descriptors. Prepared bytes live in
/// staged files, never here; no token is ever here.
///
/// Stored as JSON, version 1:
/// `{"version":1,"draftId":"…","caption":"…","items":[{"uploadId":"…","kind":"file","fileName":"…",
/// "mimeType":"…","size":123,"stage":"staged"}, {…,"stage":"ready","attachment":{…}}]}`.
/// `size` is absent while an item is `selected` (and may be on a `failed` one); `attachment` is
/// present exactly when `ready`; `failure` (why) exactly when `failed`; `path` (the file on this
/// device) only on an item that was not staged, so it can be prepared again after a relaunch.
public struct AgentAttachmentManifest: Sendable, Hashable {
    /// How far an item got before the manifest was saved.
    public enum Stage: String, Sendable, Hashable {
        /// Selected, not yet prepared: after a relaunch it is retried from its `path`, or must be
        /// selected again without one.
        case selected
        /// Failed before its bytes were staged (unreadable, refused by the limits): kept with
        /// why, so the person sees it and removes it or retries it.
        case failed
        /// Prepared bytes are in a staged file: after a relaunch it can be retried.
        case staged
        /// Uploaded: the descriptor is kept.
        case ready
    }

    /// One item.
    public struct Item: Sendable, Hashable {
        /// The upload id (letters, digits and `-`, at most 64).
        public var uploadId: String
        /// How it was picked.
        public var kind: AgentAttachmentSource.Kind
        /// The name on the card.
        public var fileName: String
        /// The MIME type.
        public var mimeType: String
        /// The size, once prepared.
        public var size: Int64?
        /// How far it got.
        public var stage: Stage
        /// The server's descriptor when `ready`.
        public var attachment: AgentAttachment?
        /// Why it failed, when `failed`.
        public var failure: String?
        /// The file on this device, for an item not yet staged that can be read again.
        public var path: String?

        /// Creates an item.
        public init(
            uploadId: String, kind: AgentAttachmentSource.Kind, fileName: String, mimeType: String, size: Int64?,
            stage: Stage, attachment: AgentAttachment?, failure: String? = nil, path: String? = nil
        ) {
            self.failure = failure
            self.path = path
            self.uploadId = uploadId
            self.kind = kind
            self.fileName = fileName
            self.mimeType = mimeType
            self.size = size
            self.stage = stage
            self.attachment = attachment
        }
    }

    /// The longest failure sentence kept, in UTF-8 bytes.
    public static let maxFailureBytes = 2_048
    /// The longest path kept, in UTF-8 bytes.
    public static let maxPathBytes = 4_096

    /// The stored format's version.
    public static let version: Int64 = 1

    /// The draft's identity: the outbox records it with the message it takes over, so a crash
    /// during the handoff is recovered without a second send.
    public var draftId: String
    /// The caption as typed.
    public var caption: String
    /// The items in selection order.
    public var items: [Item]

    /// Creates a manifest.
    public init(draftId: String, caption: String, items: [Item]) {
        self.draftId = draftId
        self.caption = caption
        self.items = items
    }

    /// Whether `id` can name an upload and a staged file: 1…64 ASCII letters, digits and `-`.
    public static func isValidUploadId(_ id: String) -> Bool {
        (1...64).contains(id.utf8.count)
            && id.utf8.allSatisfy {
                ($0 >= 0x30 && $0 <= 0x39) || ($0 | 0x20 >= 0x61 && $0 | 0x20 <= 0x7A) || $0 == 0x2D
            }
    }

    /// The manifest as stored.
    public var jsonValue: JSONValue {
        let items = items.map { item -> JSONValue in
            var members = [
                JSONMember("uploadId", .string(item.uploadId)), JSONMember("kind", .string(item.kind.rawValue)),
                JSONMember("fileName", .string(item.fileName)), JSONMember("mimeType", .string(item.mimeType)),
            ]
            if let size = item.size { members.append(JSONMember("size", .number(JSONNumber(size)))) }
            members.append(JSONMember("stage", .string(item.stage.rawValue)))
            if let attachment = item.attachment { members.append(JSONMember("attachment", attachment.jsonValue)) }
            if let failure = item.failure { members.append(JSONMember("failure", .string(failure))) }
            if let path = item.path { members.append(JSONMember("path", .string(path))) }
            return .object(JSONObject(members))
        }
        return .object(
            JSONObject([
                JSONMember("version", .number(JSONNumber(Self.version))), JSONMember("draftId", .string(draftId)),
                JSONMember("caption", .string(caption)), JSONMember("items", .array(items)),
            ]))
    }

    /// The stored bytes.
    public var bytes: [UInt8] { JSONWriter().bytes(from: jsonValue) }

    /// Reads stored bytes strictly: version 1, at most 8 items (the v1 ceiling) with distinct
    /// valid upload ids, sizes of 0…8 MiB, a descriptor exactly on ready items naming the
    /// item's own upload id.
    public static func decode(_ bytes: [UInt8]) throws(JSONError) -> AgentAttachmentManifest {
        let value = try JSONReader().parse(bytes)
        let reader = try JSONObjectReader(value, at: .root)
        try reader.requireExactKeys(["version", "draftId", "caption", "items"])
        _ = try reader.integer("version", in: version...version)
        let draftId = try reader.nonEmptyString("draftId")
        guard isValidUploadId(draftId) else {
            throw .contract(JSONPath.root.appending(key: "draftId"), "must be 1…64 letters, digits or '-'")
        }
        let elements = try reader.array("items")
        let itemsPath = JSONPath.root.appending(key: "items")
        guard elements.count <= AgentAttachmentLimits.v1.maxFiles else {
            throw .contract(itemsPath, "at most \(AgentAttachmentLimits.v1.maxFiles) items")
        }
        var items: [Item] = []
        for (index, element) in elements.enumerated() {
            let item = try decodeItem(element, at: itemsPath.appending(index: index))
            guard !items.contains(where: { $0.uploadId == item.uploadId }) else {
                throw .contract(itemsPath.appending(index: index).appending(key: "uploadId"), "repeats an earlier item")
            }
            items.append(item)
        }
        return AgentAttachmentManifest(draftId: draftId, caption: try reader.string("caption"), items: items)
    }

    private static func decodeItem(_ value: JSONValue, at path: JSONPath) throws(JSONError) -> Item {
        let reader = try JSONObjectReader(value, at: path)
        try reader.rejectUnknownKeys([
            "uploadId", "kind", "fileName", "mimeType", "size", "stage", "attachment", "failure", "path",
        ])
        let uploadId = try reader.nonEmptyString("uploadId")
        guard isValidUploadId(uploadId) else {
            throw .contract(path.appending(key: "uploadId"), "must be 1…64 letters, digits or '-'")
        }
        guard let kind = AgentAttachmentSource.Kind(rawValue: try reader.string("kind")) else {
            throw .contract(path.appending(key: "kind"), "must be file or photo")
        }
        guard let stage = Stage(rawValue: try reader.string("stage")) else {
            throw .contract(path.appending(key: "stage"), "must be selected, failed, staged or ready")
        }
        let size: Int64? =
            reader.optionalValue("size") == nil
            ? nil : try reader.integer("size", in: 0...AgentAttachmentLimits.v1.maxFileBytes)
        guard stage == .selected || stage == .failed || size != nil else {
            throw .contract(path.appending(key: "size"), "is required once an item is staged")
        }
        var attachment: AgentAttachment?
        if reader.optionalValue("attachment") != nil {
            let decoded = try reader.decode("attachment", AgentAttachment.decode)
            guard decoded.uploadId == uploadId else {
                throw .contract(path.appending(key: "attachment").appending(key: "uploadId"), "must be the item's")
            }
            attachment = decoded
        }
        guard (stage == .ready) == (attachment != nil) else {
            throw .contract(path.appending(key: "attachment"), "is present exactly when the item is ready")
        }
        let failure = reader.optionalValue("failure") == nil ? nil : try reader.nonBlankString("failure")
        guard (stage == .failed) == (failure != nil) else {
            throw .contract(path.appending(key: "failure"), "is present exactly when the item failed")
        }
        guard (failure?.utf8.count ?? 0) <= maxFailureBytes else {
            throw .contract(path.appending(key: "failure"), "at most \(maxFailureBytes) bytes")
        }
        let filePath = reader.optionalValue("path") == nil ? nil : try reader.string("path")
        if let filePath {
            guard stage == .selected || stage == .failed else {
                throw .contract(path.appending(key: "path"), "is kept only for an item that was not staged")
            }
            guard filePath.hasPrefix("/"), filePath.utf8.count <= maxPathBytes, !filePath.utf8.contains(0) else {
                throw .contract(
                    path.appending(key: "path"), "must be an absolute path of at most \(maxPathBytes) bytes")
            }
        }
        return Item(
            uploadId: uploadId, kind: kind, fileName: try reader.nonBlankString("fileName"),
            mimeType: try reader.nonEmptyString("mimeType"), size: size, stage: stage, attachment: attachment,
            failure: failure, path: filePath)
    }
}
