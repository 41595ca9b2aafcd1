import SybilCore
import SybilStore
import SybilWire

/// Where an ``UndeliveredMessages`` list is kept between launches (SPEC §2 "nothing lost":
/// what a person wrote survives a crash at any point): one document under one key of a
/// ``KeyValueStore`` (a ``FileKeyValueStore`` replaces the file atomically and flushes it
/// before returning), holding every message kept, oldest first, each with its chat, text,
/// mode, attachment count, cause and reason.
///
/// The list writes the document before it changes in memory, so a message it shows is on disk.
/// A document is never written larger than a launch reads back (``maximumDocumentBytes``): such
/// a save is refused (``UndeliveredMessagesTooLarge``), the document saved before stays, and the
/// list keeps its messages in memory, saying why, until some are taken back. No message leaves
/// the list for a count: each is a text the person wrote.
/// A document that cannot be decoded is kept aside under `<key>.unreadable` (or the first free
/// `<key>.unreadable-<n>`, up to ``maximumAsideCopies``, so an earlier copy is never replaced;
/// the texts in it stay on disk for a person to recover) and the list starts empty, saying so.
/// A document that could not be read at all, or not kept aside, stays where it is, and the
/// list does not save over it until it has been read (``UndeliveredMessages``).
public struct UndeliveredMessagesPersistence<Chat: Hashable & Sendable>: Sendable {
    /// The document's version.
    public static var version: Int64 { 1 }
    /// The most copies of unreadable documents kept aside beside the list.
    public static var maximumAsideCopies: Int { 16 }
    /// The largest document written, in bytes: the most a launch reads back (a JSON document of
    /// ``JSONReader/Limits/standard``), so a list is never saved that the next launch would
    /// set aside unread.
    public static var maximumDocumentBytes: Int { JSONReader.Limits.standard.maxBytes }

    /// The store.
    public let store: any KeyValueStore
    /// The document's key in the store.
    public let key: String
    private let encodeChat: @Sendable (Chat) -> JSONValue
    private let decodeChat: @Sendable (JSONValue, JSONPath) throws(JSONError) -> Chat

    /// The list kept under `key` of `store`; `encodeChat` writes a chat as JSON and
    /// `decodeChat` reads it back strictly.
    public init(
        store: any KeyValueStore, key: String, encodeChat: @escaping @Sendable (Chat) -> JSONValue,
        decodeChat: @escaping @Sendable (JSONValue, JSONPath) throws(JSONError) -> Chat
    ) {
        precondition(
            KeyValueStoreKey.isValid(Self.asideKey(key, copy: Self.maximumAsideCopies)),
            "invalid key \(key.debugDescription)")
        self.store = store
        self.key = key
        self.encodeChat = encodeChat
        self.decodeChat = decodeChat
    }

    /// Writes `messages` as the whole list (removes the document when there are none); a list
    /// whose document would be larger than ``maximumDocumentBytes`` is not written (the
    /// document saved before stays): it throws ``UndeliveredMessagesTooLarge``.
    func save(_ messages: [UndeliveredMessages<Chat>.Message]) throws {
        if messages.isEmpty {
            try store.removeValue(forKey: key)
        } else {
            let document = encode(messages)
            guard document.count <= Self.maximumDocumentBytes else {
                throw UndeliveredMessagesTooLarge(bytes: document.count, limit: Self.maximumDocumentBytes)
            }
            try store.set(document, forKey: key)
        }
    }

    /// The messages saved, oldest first; a sentence for a person when the document could not
    /// be read (then it was kept aside, or could not even be read); and whether a document is
    /// still under ``key`` unread, which a save would replace.
    func load() -> (messages: [UndeliveredMessages<Chat>.Message], problem: String?, leftUnread: Bool) {
        let bytes: [UInt8]?
        do {
            bytes = try store.data(forKey: key)
        } catch {
            return ([], "The messages kept undelivered could not be read: \(error)", true)
        }
        guard let bytes else { return ([], nil, false) }
        do {
            return (try decode(bytes), nil, false)
        } catch {
            let reason = error
            do {
                guard let aside = try freeAsideKey() else {
                    return (
                        [],
                        "The messages kept undelivered could not be read (\(reason)), nor kept aside: \(Self.maximumAsideCopies) copies are kept aside already.",
                        true
                    )
                }
                try store.set(bytes, forKey: aside)
                try store.removeValue(forKey: key)
                return (
                    [],
                    "The messages kept undelivered could not be read (\(reason)); they were kept aside as \(aside).",
                    false
                )
            } catch {
                return ([], "The messages kept undelivered could not be read, nor kept aside: \(error)", true)
            }
        }
    }

    /// The first aside key that holds no copy yet; `nil` when all do.
    private func freeAsideKey() throws -> String? {
        for copy in 1...Self.maximumAsideCopies {
            let aside = Self.asideKey(key, copy: copy)
            if try store.data(forKey: aside) == nil { return aside }
        }
        return nil
    }

    /// `<key>.unreadable` for the first copy, `<key>.unreadable-<copy>` for later ones.
    private static func asideKey(_ key: String, copy: Int) -> String {
        copy == 1 ? key + ".unreadable" : key + ".unreadable-\(copy)"
    }

    // MARK: - The document

    func encode(_ messages: [UndeliveredMessages<Chat>.Message]) -> [UInt8] {
        let items = messages.map { message -> JSONValue in
            var members = [
                JSONMember("id", .string(message.id)), JSONMember("chat", encodeChat(message.chat)),
                JSONMember("text", .string(message.text)), JSONMember("mode", .string(message.mode.name)),
            ]
            if case .steer(let runId) = message.mode { members.append(JSONMember("activeRunId", .string(runId))) }
            members += [
                JSONMember("attachments", .number(JSONNumber(Int64(message.attachmentCount)))),
                JSONMember("cause", .string(Self.name(of: message.cause))),
                JSONMember("reason", .string(message.reason)),
            ]
            return .object(JSONObject(members))
        }
        return JSONWriter().bytes(
            from: .object(
                JSONObject([
                    JSONMember("version", .number(JSONNumber(Self.version))), JSONMember("messages", .array(items)),
                ])
            ))
    }

    /// Reads a document strictly: at most ``maximumDocumentBytes`` (as it is written), version
    /// 1, each message with a non-empty id, its chat, a text, a known mode and cause, an
    /// attachment count within a message's ceiling and a reason; every message, in order.
    func decode(_ bytes: [UInt8]) throws(JSONError) -> [UndeliveredMessages<Chat>.Message] {
        let limits = JSONReader.Limits(maxBytes: Self.maximumDocumentBytes)
        let reader = try JSONObjectReader(try JSONReader(limits: limits).parse(bytes), at: .root)
        try reader.requireExactKeys(["version", "messages"])
        _ = try reader.integer("version", in: Self.version...Self.version)
        let listPath = JSONPath.root.appending(key: "messages")
        var messages: [UndeliveredMessages<Chat>.Message] = []
        for (index, value) in try reader.array("messages").enumerated() {
            let path = listPath.appending(index: index)
            let item = try JSONObjectReader(value, at: path)
            try item.rejectUnknownKeys(["id", "chat", "text", "mode", "activeRunId", "attachments", "cause", "reason"])
            let mode: WorkspaceSendMode
            switch try item.string("mode") {
            case "send": mode = .send
            case "steer": mode = .steer(activeRunId: try item.nonEmptyString("activeRunId"))
            default: throw .contract(path.appending(key: "mode"), "must be send or steer")
            }
            let cause: UndeliveredMessages<Chat>.Message.Cause
            switch try item.string("cause") {
            case "rejected": cause = .rejected
            case "discarded": cause = .discarded
            case "notSent": cause = .notSent
            default: throw .contract(path.appending(key: "cause"), "must be rejected, discarded or notSent")
            }
            let chat = try decodeChat(try item.value("chat"), path.appending(key: "chat"))
            messages.append(
                UndeliveredMessages<Chat>.Message(
                    id: try item.nonEmptyString("id"), chat: chat, text: try item.string("text"), mode: mode,
                    attachmentCount: Int(try item.integer("attachments", in: 0...Int64(Int32.max))), cause: cause,
                    reason: try item.string("reason")))
        }
        return messages
    }

    private static func name(of cause: UndeliveredMessages<Chat>.Message.Cause) -> String {
        switch cause {
        case .rejected: "rejected"
        case .discarded: "discarded"
        case .notSent: "notSent"
        }
    }
}
