import SybilCore
import SybilStore

/// `sybil history export [--json] [-o FILE]` and `sybil history delete ID`.
extension HistoryCommand {
    /// The most conversations an export reads (every one a history can reasonably hold).
    static let exportLimit = Int(Int32.max)

    // MARK: export

    static func export(_ arguments: [String], io: CommandIO) async throws(UsageError) -> ExitCode {
        let command = name + " export"
        guard let parsed = try CommandSpec.historyExport.parse(arguments) else {
            io.writeOutput(CommandSpec.historyExport.help)
            return .success
        }
        let asJSON = parsed.given(jsonOption)
        let file = parsed.text(outputOption)
        if let file, file.isEmpty { throw UsageError(command: command, message: "-o needs a file name") }
        var conversations: [(ChatConversationRecord, [ChatMessageRecord])] = []
        switch ChatHistoryLocation.openForReading(io: io, command: command) {
        case .store(let store):
            do {
                for conversation in try await store.recentConversations(limit: exportLimit) {
                    conversations.append((conversation, try await store.messages(inConversation: conversation.id)))
                }
            } catch {
                io.writeError("\(command): \(error)\n")
                return .noInput
            }
        case .none: break
        case .failed: return .noInput
        }
        let text =
            asJSON
            ? HistoryJSON.document(.array(conversations.map { HistoryJSON.conversation($0, messages: $1) }))
            : conversations.map { HistoryMarkdown.text($0, messages: $1, time: timestamp) }
                .joined(separator: HistoryMarkdown.separator)
        let count = conversations.count == 1 ? "1 conversation" : "\(conversations.count) conversations"
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

    // MARK: delete

    static func delete(_ arguments: [String], io: CommandIO) async throws(UsageError) -> ExitCode {
        let command = name + " delete"
        guard let parsed = try CommandSpec.historyDelete.parse(arguments) else {
            io.writeOutput(CommandSpec.historyDelete.help)
            return .success
        }
        guard let id = parsed.positionals.first else {
            throw UsageError(command: command, message: "needs a conversation ID")
        }
        let quoted = TerminalText.safe(String(id.prefix(100)))
        let store: SQLiteChatHistory
        switch ChatHistoryLocation.openForReading(io: io, command: command) {
        case .store(let opened): store = opened
        case .none:
            io.writeError("\(command): no conversation '\(quoted)' (nothing is saved yet)\n")
            return .noInput
        case .failed: return .noInput
        }
        do {
            guard try await store.conversation(id: id) != nil else {
                io.writeError("\(command): no conversation '\(quoted)'; see sybil history list\n")
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
