import SybilCore
import SybilStore

/// `sybil history export [--json] [-o FILE]` and `sybil history delete ID`: chats and saved web
/// searches alike.
extension HistoryCommand {
    /// The most conversations an export reads (every one a history can reasonably hold).
    static let exportLimit = Int(Int32.max)

    // MARK: export

    static func export(_ arguments: [String], io: CommandIO) async throws(UsageError) -> ExitCode {
        let command = name + " export"
        guard let options = try exportSpec.parse(arguments)?.options else {
            io.writeOutput(exportSpec.help)
            return .success
        }
        let asJSON = options.json
        let file = options.output
        if let file, file.isEmpty { throw UsageError(command: command, message: "-o needs a file name") }
        // Chats and web searches together, newest first, as `history list` orders them.
        var items: [HistoryListing.Item] = []
        var messages: [String: [ChatMessageRecord]] = [:]
        switch ChatHistoryLocation.openForReading(io: io, command: command) {
        case .store(let store):
            do {
                let chats = try await store.recentConversations(limit: exportLimit)
                for conversation in chats {
                    messages[conversation.id] = try await store.messages(inConversation: conversation.id)
                }
                items = HistoryListing.merge(
                    chats.map(HistoryListing.Item.chat),
                    try await store.recentWebSearches(limit: exportLimit).map(HistoryListing.Item.webSearch))
            } catch {
                io.writeError("\(command): \(error)\n")
                return .noInput
            }
        case .none: break
        case .failed: return .noInput
        }
        let text: String
        if asJSON {
            text = HistoryJSON.document(
                .array(
                    items.map { item in
                        switch item {
                        case .chat(let chat): HistoryJSON.conversation(chat, messages: messages[chat.id] ?? [])
                        case .webSearch(let search): HistoryJSON.webSearch(search, id: search.id)
                        }
                    }))
        } else {
            text = items.map { item in
                switch item {
                case .chat(let chat): HistoryMarkdown.text(chat, messages: messages[chat.id] ?? [], time: timestamp)
                case .webSearch(let search): HistoryMarkdown.webSearch(search, time: timestamp)
                }
            }.joined(separator: HistoryMarkdown.separator)
        }
        let count = Self.count(items)
        guard let file else {
            io.writeOutput(io.outputIsTerminal ? TerminalText.safe(text) : text)
            io.writeError("\(command): \(count) exported\n")
            return .success
        }
        do {
            try AtomicFile.write(Array(text.utf8), to: file)
        } catch {
            io.writeError("\(command): cannot write '\(TerminalText.safe(file))': \(error); choose a writable file\n")
            return .cannotCreate
        }
        io.writeError("\(command): \(count) written to '\(TerminalText.safe(file))'\n")
        return .success
    }

    /// "2 conversations", "1 conversation and 1 web search": what an export holds.
    static func count(_ items: [HistoryListing.Item]) -> String {
        let searches = items.count { if case .webSearch = $0 { true } else { false } }
        let chats = items.count - searches
        let conversations = chats == 1 ? "1 conversation" : "\(chats) conversations"
        guard searches > 0 else { return conversations }
        return conversations + (searches == 1 ? " and 1 web search" : " and \(searches) web searches")
    }

    // MARK: delete

    static func delete(_ arguments: [String], io: CommandIO) async throws(UsageError) -> ExitCode {
        let command = name + " delete"
        guard let parsed = try deleteSpec.parse(arguments) else {
            io.writeOutput(deleteSpec.help)
            return .success
        }
        guard let id = parsed.positionals.first else {
            throw UsageError(command: command, message: "needs a conversation or web search ID")
        }
        let quoted = TerminalText.safe(String(id.prefix(100)))
        let store: SQLiteChatHistory
        switch ChatHistoryLocation.openForReading(io: io, command: command) {
        case .store(let opened): store = opened
        case .none:
            io.writeError("\(command): no conversation or web search '\(quoted)' (nothing is saved yet)\n")
            return .noInput
        case .failed: return .noInput
        }
        do {
            guard try await store.conversation(id: id) != nil else {
                // A web search and its search row go together, in one transaction.
                if try await store.deleteWebSearch(id: id) {
                    io.writeError("\(command): deleted web search '\(quoted)'\n")
                    return .success
                }
                io.writeError("\(command): no conversation or web search '\(quoted)'; see sybil history list\n")
                return .noInput
            }
            // One transaction: the conversation, its messages and their search rows go together.
            try await store.deleteConversation(id: id)
        } catch {
            io.writeError("\(command): \(error)\n")
            return .cannotCreate
        }
        io.writeError("\(command): deleted conversation '\(quoted)'\n")
        return .success
    }
}
