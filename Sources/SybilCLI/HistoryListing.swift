import SybilStore

/// What `sybil history list` lists: the saved chats and web searches together, newest first
/// (a chat by when it was last updated, a web search by when it was saved; on a tie the chat
/// first), at most `limit` in all.
enum HistoryListing {
    /// One listed item.
    enum Item {
        case chat(ChatConversationRecord)
        case webSearch(SavedWebSearch)

        /// The time it is ordered by.
        var time: Int64 {
            switch self {
            case .chat(let conversation): conversation.updatedAt
            case .webSearch(let search): search.createdAt
            }
        }
    }

    /// The newest `limit` items of `store`.
    static func recent(in store: any ChatHistoryStore, limit: Int) async throws -> [Item] {
        let chats = try await store.recentConversations(limit: limit).map(Item.chat)
        let searches = try await store.recentWebSearches(limit: limit).map(Item.webSearch)
        return Array(merge(chats, searches).prefix(limit))
    }

    /// Two lists each newest first, merged newest first; on a tie `first`'s item comes first.
    static func merge(_ first: [Item], _ second: [Item]) -> [Item] {
        var merged: [Item] = []
        merged.reserveCapacity(first.count + second.count)
        var (left, right) = (first[...], second[...])
        while let a = left.first, let b = right.first {
            if a.time >= b.time {
                merged.append(a)
                left = left.dropFirst()
            } else {
                merged.append(b)
                right = right.dropFirst()
            }
        }
        return merged + left + right
    }
}
