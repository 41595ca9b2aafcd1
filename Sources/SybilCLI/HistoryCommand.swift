import Foundation
import SybilCore
import SybilMarkdown
import SybilStore

/// `sybil history [list [--limit N] [--json] | show ID [--json | --markdown] | export [--json]
/// [-o FILE] | delete ID]`: the saved chats, newest first, one chat's messages as stored, all of
/// them at once, or one removed. Reads the local history file; needs no server.
enum HistoryCommand {
    static let name = "sybil history"

    /// The subcommands, one line each; no subcommand lists.
    static let table = CommandTable(
        group: spec,
        entries: [
            .init("list", list), .init("show", show), .init("export", export), .init("delete", delete),
        ],
        bare: list)

    static func run(_ arguments: [String], io: CommandIO) async throws(UsageError) -> ExitCode {
        try await table.run(arguments, io: io)
    }

    // MARK: list

    static func list(_ arguments: [String], io: CommandIO) async throws(UsageError) -> ExitCode {
        let command = name + " list"
        guard let options = try listSpec.parse(arguments)?.options else {
            io.writeOutput(listSpec.help)
            return .success
        }
        let limit = options.limit
        let asJSON = options.json
        let store: SQLiteChatHistory
        switch ChatHistoryLocation.openForReading(io: io, command: command) {
        case .store(let opened): store = opened
        case .none:
            if asJSON { io.writeOutput(HistoryJSON.document(.array([]))) }
            io.writeError("no saved chats\n")
            return .success
        case .failed: return .noInput
        }
        do {
            var output = ""
            var entries: [JSONValue] = []
            let items = try await HistoryListing.recent(in: store, limit: limit)
            for item in items {
                switch item {
                case .chat(let conversation):
                    let count = try await store.messages(inConversation: conversation.id).count
                    entries.append(HistoryJSON.summary(conversation, messageCount: count))
                    let title = HistoryTranscript.line(conversation.title, width: 60)
                    output += "\(conversation.id)  \(timestamp(conversation.updatedAt))  \(title)  "
                    output += count == 1 ? "(1 message)\n" : "(\(count) messages)\n"
                case .webSearch(let search):
                    entries.append(HistoryJSON.webSearch(search, id: search.id))
                    let query = HistoryTranscript.line(search.query, width: 54)
                    let sources = search.sources.count
                    output += "\(TerminalText.safe(search.id))  \(timestamp(search.createdAt))  [web] \(query)  "
                    output += sources == 1 ? "(1 source)\n" : "(\(sources) sources)\n"
                }
            }
            io.writeOutput(asJSON ? HistoryJSON.document(.array(entries)) : output)
            if items.isEmpty { io.writeError("no saved chats\n") }
            return .success
        } catch {
            io.writeError("\(command): \(error)\n")
            return .noInput
        }
    }

    // MARK: show

    static func show(_ arguments: [String], io: CommandIO) async throws(UsageError) -> ExitCode {
        let command = name + " show"
        guard let parsed = try showSpec.parse(arguments) else {
            io.writeOutput(showSpec.help)
            return .success
        }
        guard let id = parsed.positionals.first else {
            throw UsageError(command: command, message: "needs a conversation ID")
        }
        let asJSON = parsed.options.json
        let asMarkdown = parsed.options.markdown
        if asJSON && asMarkdown {
            throw UsageError(command: command, message: "--json and --markdown exclude each other")
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
            guard let conversation = try await store.conversation(id: id) else {
                if let search = try await store.webSearch(id: id) {
                    return showWebSearch(search, asJSON: asJSON, asMarkdown: asMarkdown, io: io)
                }
                io.writeError("\(command): no conversation or web search '\(quoted)'; see sybil history list\n")
                return .noInput
            }
            let messages = try await store.messages(inConversation: id)
            if asJSON {
                io.writeOutput(HistoryJSON.document(HistoryJSON.conversation(conversation, messages: messages)))
                return .success
            }
            if asMarkdown {
                let text = HistoryMarkdown.text(conversation, messages: messages, time: timestamp)
                io.writeOutput(io.outputIsTerminal ? TerminalText.safe(text) : text)
                return .success
            }
            let terminal = TerminalOutput(io: io)
            let markdown = TerminalMarkdownRenderer(width: terminal.columns, color: terminal.isStyled)
            let text =
                terminal.isTerminal
                ? HistoryTranscript.text(
                    conversation, messages: messages, time: timestamp, reply: { markdown.render(markdown: $0) })
                : HistoryTranscript.text(conversation, messages: messages, time: timestamp)
            io.writeOutput(text)
            return .success
        } catch {
            io.writeError("\(command): \(error)\n")
            return .noInput
        }
    }

    /// Prints a saved web search: as JSON, as a Markdown document, or as text (the answer
    /// rendered on a terminal).
    private static func showWebSearch(_ search: SavedWebSearch, asJSON: Bool, asMarkdown: Bool, io: CommandIO)
        -> ExitCode
    {
        if asJSON {
            io.writeOutput(HistoryJSON.document(HistoryJSON.webSearch(search, id: search.id)))
        } else if asMarkdown {
            let text = HistoryMarkdown.webSearch(search, time: timestamp)
            io.writeOutput(io.outputIsTerminal ? TerminalText.safe(text) : text)
        } else {
            let terminal = TerminalOutput(io: io)
            let markdown = TerminalMarkdownRenderer(width: terminal.columns, color: terminal.isStyled)
            io.writeOutput(
                terminal.isTerminal
                    ? HistoryTranscript.webSearch(search, time: timestamp, reply: { markdown.render(markdown: $0) })
                    : HistoryTranscript.webSearch(search, time: timestamp))
        }
        return .success
    }

    /// `2026-12-01T00:53:47Z` (UTC, ISO 8601, whole seconds) for milliseconds since 1970.
    static func timestamp(_ milliseconds: Int64) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.formatOptions = [.withInternetDateTime]
        let seconds = Double(milliseconds.quotientAndRemainder(dividingBy: 1_000).quotient)
        let adjusted = milliseconds < 0 && milliseconds % 1_000 != 0 ? seconds - 1 : seconds
        return formatter.string(from: Date(timeIntervalSince1970: adjusted))
    }
}
