import SybilCore
import SybilStore

/// The ordinary chats' messages a person wrote that were not sent (a file in it could not be
/// attached, a reply was still arriving, it could not be saved) and whose text is not in a
/// composer, per chat: SPEC §2 "nothing lost". ``ChatListModel`` keeps them.
public typealias ChatUndeliveredMessages = UndeliveredMessages<ChatPlace>

extension UndeliveredMessagesPersistence where Chat == ChatPlace {
    /// The ordinary chats' kept texts in `store` under `key`: the new chat is `null`, a saved
    /// conversation its id.
    public static func chats(in store: any KeyValueStore, key: String = "chat-undelivered") -> Self {
        UndeliveredMessagesPersistence(
            store: store, key: key,
            encodeChat: { place in
                switch place {
                case .newChat: .null
                case .conversation(let id): .string(id)
                }
            },
            decodeChat: { (value, path) throws(JSONError) -> ChatPlace in
                switch value {
                case .null: return .newChat
                case .string(let id) where !id.isEmpty: return .conversation(id)
                default: throw .contract(path, "must be null (the new chat) or a conversation id")
                }
            })
    }
}
