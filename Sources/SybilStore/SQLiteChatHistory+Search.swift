/// History search over the FTS5 index (SPEC §5.4).
///
/// Order: when no more than `limit` items match (the list is complete), best match first
/// (`bm25`, a title weighing twice the body) and, between equal scores, newest first. Past the
/// cap (`hasMore`, and the front end asks for a narrower query) the newest `limit` matches, by
/// the time of their last change: that is the index's rowid order, which FTS5 streams and stops
/// after `limit + 1` rows, while ranking would have to score every row of a common word (tens
/// of milliseconds over a million messages).
extension SQLiteChatHistory {
    /// The most hits one search returns, whatever `limit` asks for.
    public static let maximumSearchLimit = 1_000

    /// Searches titles, message text and saved web searches for `query`'s words as word
    /// prefixes. A blank query (or one with no words) finds nothing and runs no SQL.
    public func search(_ query: String, limit: Int) async throws -> ChatSearchResults {
        let parsed = ChatSearchQuery(query)
        guard !parsed.isEmpty, limit > 0 else { return .empty }
        let limit = min(limit, Self.maximumSearchLimit)
        let terms = parsed.terms.map(\.text)
        let path = path
        return try await run { database in
            let (expression, answerExpression) = try Self.expressions(for: parsed, database)
            let newest = try database.query(Self.newestSQL, [.text(expression), .integer(Int64(limit + 1))])
            let hasMore = newest.count > limit
            // Complete: rank every match (there are at most `limit`). Past the cap: newest first.
            let rows = hasMore ? Array(newest.prefix(limit)) : try database.query(Self.rankedSQL, [.text(expression)])
            var hits: [(hit: ChatSearchResults.Hit, score: Double, rowid: Int64)] = []
            hits.reserveCapacity(rows.count)
            for row in rows {
                let rowid = try Self.integer(row, 0, "chat_search.rowid", path: path)
                let kind = try Self.integer(row, 1, "chat_search.kind", path: path)
                let ref = try Self.integer(row, 2, "chat_search.ref", path: path)
                guard row.count == 9, case .real(let score) = row[3] else {
                    throw StorageError(operation: "read", path: path, reason: "bm25() returned no real")
                }
                let hit =
                    kind == SearchKind.message.rawValue
                    ? try Self.messageHit(row, ref: ref, terms: terms, path: path)
                    : try Self.hit(
                        kind: kind, ref: ref, rowid: rowid, terms: terms, answerExpression: answerExpression, database,
                        path: path)
                hits.append((hit, score, rowid))
            }
            hits.sort { left, right in
                if left.score != right.score { return left.score < right.score }
                if !hasMore, left.hit.updatedAt != right.hit.updatedAt {
                    return left.hit.updatedAt > right.hit.updatedAt
                }
                return left.rowid > right.rowid
            }
            return ChatSearchResults(hits: Array(hits.prefix(limit).map(\.hit)), hasMore: hasMore)
        }
    }

    /// The index rows of `matches` (rowid, kind, ref, score), each message's own row and its
    /// conversation's joined in: one statement instead of one lookup per hit, which was most
    /// of a 100-hit search's time in the store. Titles and web searches (a few hits) are
    /// read one by one (`hit(kind:…)`).
    private static func joiningMessages(_ matches: String) -> String {
        """
        SELECT s.rowid, s.kind, s.ref, s.score, c.id, m.id, c.title, m.text, COALESCE(m.finished_at, m.created_at)
        FROM (\(matches)) AS s
        LEFT JOIN chat_messages m ON s.kind = \(SearchKind.message.rawValue) AND m.seq = s.ref
        LEFT JOIN chat_conversations c ON c.seq = m.conversation_seq
        """
    }

    /// The newest `?2` matches of `?1`, newest first (FTS5 streams them and stops).
    private static let newestSQL =
        joiningMessages(
            "SELECT rowid, kind, ref, 0.0 AS score FROM chat_search WHERE chat_search MATCH ? ORDER BY rowid DESC LIMIT ?"
        ) + " ORDER BY s.rowid DESC"

    /// Every match of `?1` with its `bm25` score (a title weighing twice the body).
    private static let rankedSQL = joiningMessages(
        "SELECT rowid, kind, ref, bm25(chat_search, 2.0, 1.0) AS score FROM chat_search WHERE chat_search MATCH ?")

    /// A message hit from a row of `joiningMessages`.
    private static func messageHit(_ row: [SQLiteValue], ref: Int64, terms: [String], path: String) throws
        -> ChatSearchResults.Hit
    {
        guard row[5] != .null else {
            throw StorageError(
                operation: "read", path: path, reason: "the search index points at a missing row (ref \(ref))")
        }
        return ChatSearchResults.Hit(
            source: .message(
                conversationId: try text(row, 4, "chat_conversations.id", path: path),
                messageId: try text(row, 5, "chat_messages.id", path: path)),
            title: try text(row, 6, "chat_conversations.title", path: path),
            text: try text(row, 7, "chat_messages.text", path: path), terms: terms,
            updatedAt: try integer(row, 8, "chat_messages.created_at", path: path))
    }

    /// A title or web search hit, read by its own lookups.
    private static func hit(
        kind: Int64, ref: Int64, rowid: Int64, terms: [String], answerExpression: String, _ database: SQLiteDatabase,
        path: String
    ) throws -> ChatSearchResults.Hit {
        switch SearchKind(rawValue: kind) {
        case .title:
            let row = try source(
                "SELECT id, title, updated_at FROM chat_conversations WHERE seq = ?", ref, database, path: path)
            let title = try text(row, 1, "chat_conversations.title", path: path)
            return ChatSearchResults.Hit(
                source: .title(conversationId: try text(row, 0, "chat_conversations.id", path: path)),
                title: title, text: title, terms: terms,
                updatedAt: try integer(row, 2, "chat_conversations.updated_at", path: path))
        case .webSearch:
            let row = try source(
                "SELECT id, query, answer, created_at FROM chat_web_searches WHERE seq = ?", ref, database, path: path)
            let query = try text(row, 1, "chat_web_searches.query", path: path)
            let answerMatches = try !database.query(
                "SELECT 1 FROM chat_search WHERE chat_search MATCH ? AND rowid = ?",
                [.text(answerExpression), .integer(rowid)]
            ).isEmpty
            return ChatSearchResults.Hit(
                source: .webSearch(id: try text(row, 0, "chat_web_searches.id", path: path)), title: query,
                text: answerMatches ? try text(row, 2, "chat_web_searches.answer", path: path) : query, terms: terms,
                updatedAt: try integer(row, 3, "chat_web_searches.created_at", path: path))
        case .message, nil:  // Messages come joined into the search's own rows (`messageHit`).
            throw StorageError(operation: "read", path: path, reason: "column chat_search.kind holds unknown \(kind)")
        }
    }

    private static func source(_ sql: String, _ ref: Int64, _ database: SQLiteDatabase, path: String) throws
        -> [SQLiteValue]
    {
        guard let row = try database.query(sql, [.integer(ref)]).first else {
            throw StorageError(
                operation: "read", path: path, reason: "the search index points at a missing row (ref \(ref))")
        }
        return row
    }
}
