import SybilCore
import SybilWire

/// Reading saved web searches back (one by id, or the newest first) and removing one. Sources
/// are read strictly (the Wire contract's decoder), so a damaged row is an error naming its
/// column.
extension SQLiteChatHistory {
    /// The web search with `id`, if saved.
    public func webSearch(id: String) async throws -> SavedWebSearch? {
        let path = path
        return try await run { database in
            try database.query(
                "SELECT id, query, answer, created_at, sources FROM chat_web_searches WHERE id = ?", [.text(id)]
            ).first.map { try Self.webSearch($0, path: path) }
        }
    }

    /// The most recently saved web searches, newest first (ties: the later saved first).
    public func recentWebSearches(limit: Int) async throws -> [SavedWebSearch] {
        let path = path
        return try await run { database in
            try database.query(
                """
                SELECT id, query, answer, created_at, sources FROM chat_web_searches
                ORDER BY created_at DESC, seq DESC LIMIT ?
                """, [.integer(Int64(max(0, limit)))]
            ).map { try Self.webSearch($0, path: path) }
        }
    }

    /// Removes the web search with `id` and its search row in one transaction; returns whether
    /// there was one.
    @discardableResult
    public func deleteWebSearch(id: String) async throws -> Bool {
        try await write { database in
            guard try database.query("SELECT seq FROM chat_web_searches WHERE id = ?", [.text(id)]).first != nil else {
                return false
            }
            try database.query(
                "DELETE FROM chat_search WHERE rowid IN (SELECT search_rowid FROM chat_web_searches WHERE id = ?)",
                [.text(id)])
            try database.query("DELETE FROM chat_web_searches WHERE id = ?", [.text(id)])
            return true
        }
    }

    private static func webSearch(_ row: [SQLiteValue], path: String) throws -> SavedWebSearch {
        let text = try text(row, 4, "chat_web_searches.sources", path: path)
        let sources: [WebSearchSource]
        do {
            guard case .array(let items) = try JSONReader().parse(Array(text.utf8)) else {
                throw JSONError.contract(.root, "expected an array")
            }
            sources = try items.enumerated().map { index, item throws(JSONError) in
                try WebSearchSource.decode(item, at: JSONPath.root.appending(index: index))
            }
        } catch {
            throw StorageError(
                operation: "read", path: path, reason: "column chat_web_searches.sources is not a source list: \(error)"
            )
        }
        return SavedWebSearch(
            id: try Self.text(row, 0, "chat_web_searches.id", path: path),
            query: try Self.text(row, 1, "chat_web_searches.query", path: path),
            answer: try Self.text(row, 2, "chat_web_searches.answer", path: path), sources: sources,
            createdAt: try integer(row, 3, "chat_web_searches.created_at", path: path))
    }
}
