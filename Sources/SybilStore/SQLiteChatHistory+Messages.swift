import SybilCore
import SybilWire

/// Messages: appended at the end of their conversation (an `position` column keeps the order),
/// updated as a reply streams, each write reindexed in its transaction.
extension SQLiteChatHistory {
    /// A conversation's messages in the order they were added.
    public func messages(inConversation id: String) async throws -> [ChatMessageRecord] {
        let path = path
        return try await run { database in
            try database.query(
                """
                SELECT m.id, c.id, m.role, m.text, m.model, m.state, m.failure_reason, m.created_at, m.finished_at,
                    m.attachments, m.tool_calls
                FROM chat_messages m JOIN chat_conversations c ON m.conversation_seq = c.seq
                WHERE c.id = ? ORDER BY m.position
                """, [.text(id)]
            ).map { try Self.message($0, path: path) }
        }
    }

    /// Adds a message at the end of its conversation and sets the conversation's `updatedAt` to
    /// the message's `createdAt`. An id that exists, or an unknown conversation, is an error.
    public func appendMessage(_ message: ChatMessageRecord) async throws {
        try await appendMessages([message])
    }

    /// Adds `messages` in order, in one transaction (one fsync): an import, or a bulk load.
    /// Either all are saved or none.
    public func appendMessages(_ messages: [ChatMessageRecord]) async throws {
        let path = path
        try await write { database in
            for message in messages { try Self.insert(message, database, path: path) }
        }
    }

    /// Replaces a saved message's text, state and end time (and its tool calls, unless
    /// `toolCalls` is `nil`), reindexes it, and sets its conversation's `updatedAt` to `time`, in
    /// one transaction. An unknown id is an error.
    public func updateMessage(
        id: String, text: String, state: ChatMessageRecord.State, finishedAt: Int64?, toolCalls: [ChatToolCall]?,
        at time: Int64
    ) async throws {
        let path = path
        try await write { database in
            let row = try database.query(
                "SELECT seq, conversation_seq, search_rowid FROM chat_messages WHERE id = ?", [.text(id)]
            ).first
            guard let row else { throw Self.missing("message", id: id, path: path) }
            let seq = try Self.integer(row, 0, "chat_messages.seq", path: path)
            let conversation = try Self.integer(row, 1, "chat_messages.conversation_seq", path: path)
            let old = try Self.optionalInteger(row, 2, "chat_messages.search_rowid", path: path)
            let columns = Self.columns(for: state)
            try database.query(
                "UPDATE chat_messages SET text = ?, state = ?, failure_reason = ?, finished_at = ? WHERE seq = ?",
                [.text(text), columns.state, columns.reason, finishedAt.map { .integer($0) } ?? .null, .integer(seq)])
            if let toolCalls {
                try database.query(
                    "UPDATE chat_messages SET tool_calls = ? WHERE seq = ?",
                    [Self.toolCallsColumn(toolCalls), .integer(seq)])
            }
            try database.query(
                "UPDATE chat_conversations SET updated_at = ? WHERE seq = ?", [.integer(time), .integer(conversation)])
            try Self.indexMessage(seq: seq, text: text, replacing: old, database)
        }
    }

    /// Takes back what an attempt added to a saved conversation: removes the messages `ids`
    /// (and their search rows) from conversation `conversationId` and sets its `updatedAt` back
    /// to `updatedAt`, in one transaction. `sybil ask -c` uses it when its request never left
    /// the machine. Ids that are not saved in that conversation are skipped.
    public func removeMessages(ids: [String], fromConversation conversationId: String, updatedAt: Int64)
        async throws
    {
        try await write { database in
            let match =
                "FROM chat_messages WHERE id = ? AND conversation_seq = (SELECT seq FROM chat_conversations WHERE id = ?)"
            for id in ids {
                try database.query(
                    "DELETE FROM chat_search WHERE rowid IN (SELECT search_rowid \(match))",
                    [.text(id), .text(conversationId)])
                try database.query("DELETE \(match)", [.text(id), .text(conversationId)])
            }
            try database.query(
                "UPDATE chat_conversations SET updated_at = ? WHERE id = ?",
                [.integer(updatedAt), .text(conversationId)])
        }
    }

    static func insert(_ message: ChatMessageRecord, _ database: SQLiteDatabase, path: String) throws {
        guard
            let conversation = try database.query(
                "SELECT seq FROM chat_conversations WHERE id = ?", [.text(message.conversationId)]
            ).first
        else { throw missing("conversation", id: message.conversationId, path: path) }
        let conversationSeq = try integer(conversation, 0, "chat_conversations.seq", path: path)
        let columns = columns(for: message.state)
        try database.query(
            """
            INSERT INTO chat_messages
                (id, conversation_seq, position, role, text, model, state, failure_reason, created_at, finished_at,
                attachments, tool_calls)
            VALUES (?, ?, (SELECT COALESCE(MAX(position), -1) + 1 FROM chat_messages WHERE conversation_seq = ?),
                ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """,
            [
                .text(message.id), .integer(conversationSeq), .integer(conversationSeq), .text(message.role.rawValue),
                .text(message.text), .optionalText(message.model), columns.state, columns.reason,
                .integer(message.createdAt), message.finishedAt.map { .integer($0) } ?? .null,
                message.attachments.isEmpty
                    ? .null : .text(JSONWriter().string(from: .array(message.attachments.map(\.jsonValue)))),
                toolCallsColumn(message.toolCalls),
            ])
        let seq = try lastInsertRowid(database)
        try database.query(
            "UPDATE chat_conversations SET updated_at = ? WHERE seq = ?",
            [.integer(message.createdAt), .integer(conversationSeq)])
        try indexMessage(seq: seq, text: message.text, replacing: nil, database)
    }

    /// Replaces a message's index row (`replacing` is the old one's rowid).
    private static func indexMessage(seq: Int64, text: String, replacing old: Int64?, _ database: SQLiteDatabase)
        throws
    {
        if let old { try database.query("DELETE FROM chat_search WHERE rowid = ?", [.integer(old)]) }
        try recordTerms(of: text, database)
        try database.query(
            "INSERT INTO chat_search (title, body, kind, ref) VALUES ('', ?, ?, ?)",
            [.text(ChatSearchQuery.indexText(text)), .integer(SearchKind.message.rawValue), .integer(seq)])
        try database.query(
            "UPDATE chat_messages SET search_rowid = ? WHERE seq = ?",
            [.integer(try lastInsertRowid(database)), .integer(seq)])
    }

    private static func message(_ row: [SQLiteValue], path: String) throws -> ChatMessageRecord {
        ChatMessageRecord(
            id: try text(row, 0, "chat_messages.id", path: path),
            conversationId: try text(row, 1, "chat_conversations.id", path: path),
            role: try role(row, 2, path: path),
            text: try text(row, 3, "chat_messages.text", path: path),
            model: try optionalText(row, 4, "chat_messages.model", path: path),
            state: try state(row, 5, reasonAt: 6, path: path),
            createdAt: try integer(row, 7, "chat_messages.created_at", path: path),
            finishedAt: try optionalInteger(row, 8, "chat_messages.finished_at", path: path),
            attachments: try attachments(row, 9, path: path),
            toolCalls: try toolCalls(row, 10, path: path))
    }

    /// The `tool_calls` column for `calls`: NULL for none, else a JSON array of at most
    /// ``ChatToolCall/maximumCalls`` calls, each within its bounds.
    static func toolCallsColumn(_ calls: [ChatToolCall]) -> SQLiteValue {
        guard !calls.isEmpty else { return .null }
        let kept = calls.prefix(ChatToolCall.maximumCalls).map { $0.bounded.storedValue }
        return .text(JSONWriter().string(from: .array(Array(kept))))
    }

    /// A message's tool calls from its `tool_calls` column (a JSON array; NULL for none),
    /// read strictly: more calls than the bound, or a call out of its bounds, is an error.
    private static func toolCalls(_ row: [SQLiteValue], _ index: Int, path: String) throws -> [ChatToolCall] {
        guard let json = try optionalText(row, index, "chat_messages.tool_calls", path: path) else { return [] }
        do throws(JSONError) {
            let value = try JSONReader(limits: JSONReader.Limits(maxDepth: 8)).parse(Array(json.utf8))
            guard case .array(let array) = value, array.count <= ChatToolCall.maximumCalls else {
                throw JSONError(
                    kind: .contract, path: .root, message: "expected an array of at most \(ChatToolCall.maximumCalls)")
            }
            var calls: [ChatToolCall] = []
            for (position, element) in array.enumerated() {
                calls.append(try ChatToolCall.decodeStored(element, at: JSONPath.root.appending(index: position)))
            }
            return calls
        } catch {
            throw StorageError(
                operation: "read", path: path, reason: "column chat_messages.tool_calls is not readable: \(error)")
        }
    }

    /// A message's attachments from its `attachments` column (a JSON array; NULL for none).
    private static func attachments(_ row: [SQLiteValue], _ index: Int, path: String) throws -> [ChatAttachment] {
        guard let json = try optionalText(row, index, "chat_messages.attachments", path: path) else { return [] }
        do throws(JSONError) {
            let value = try JSONReader(limits: JSONReader.Limits(maxDepth: 8)).parse(Array(json.utf8))
            guard case .array(let array) = value else {
                throw JSONError(kind: .contract, path: .root, message: "expected an array")
            }
            var attachments: [ChatAttachment] = []
            for (position, element) in array.enumerated() {
                attachments.append(try ChatAttachment.decode(element, at: JSONPath.root.appending(index: position)))
            }
            return attachments
        } catch {
            throw StorageError(
                operation: "read", path: path, reason: "column chat_messages.attachments is not readable: \(error)")
        }
    }
}
