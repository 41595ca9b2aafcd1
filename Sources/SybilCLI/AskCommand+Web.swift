import Foundation
import SybilClient
import SybilCore
import SybilHTTP
import SybilMarkdown
import SybilStore
import SybilWire

extension AskCommand {
    /// `sybil ask --web QUESTION`: sends the question to the server's web-search route
    /// (``WebSearchClient``), prints the answer and its numbered sources (every piece of the
    /// server's text made safe for the terminal, URLs as text), and saves it in the history as
    /// a web search. A server that does not offer web searches is said so (exit 69) before
    /// anything is sent.
    @MainActor
    static func web(_ request: Request, json: Bool, io: CommandIO) async -> ExitCode {
        let query = request.question
        guard query.utf8.count <= WebSearchRequest.maxQueryBytes else {
            io.writeError(
                "\(name): the web-search query is \(query.utf8.count) bytes, over the limit of "
                    + "\(WebSearchRequest.maxQueryBytes) bytes (8 KiB); search for something shorter\n")
            return .invalidData
        }
        guard let store = ChatHistoryLocation.store(keeping: request.save, io: io, command: name) else {
            return unanswered(request, .cannotCreate, io: io)
        }
        guard let connection = ChatClientStack.connect(request.target, seed: request.seed, command: name, io: io)
        else { return unanswered(request, .unavailable, io: io) }
        let status = await web(query, save: request.save, json: json, store: store, connection: connection, io: io)
        await connection.close()
        // `cannotCreate` from the search itself means answered and printed, only not saved.
        return status == .success || status == .cannotCreate ? status : unanswered(request, status, io: io)
    }

    /// A query read from standard input cannot be typed again, and an unanswered web search
    /// is not saved: it is printed back on standard error, as `ask` does for a question that
    /// never left the machine. Returns `status`.
    private static func unanswered(_ request: Request, _ status: ExitCode, io: CommandIO) -> ExitCode {
        guard request.piped else { return status }
        io.writeError(
            "\(name): the web search was not answered or saved; the query follows, to pipe in again:\n"
                + TerminalText.safe(request.question) + (request.question.hasSuffix("\n") ? "" : "\n"))
        return status
    }

    @MainActor
    private static func web(
        _ query: String, save: Bool, json: Bool, store: any ChatHistoryStore, connection: ServerTarget.Connection,
        io: CommandIO
    ) async -> ExitCode {
        if let offered = await connection.capabilities(io: io), !offered.offers(.webSearch) {
            io.writeError("\(name): \(ServerSurface.webSearch.notOfferedSentence(server: connection.serverName))\n")
            return .unavailable
        }
        guard let base = connection.apiBase(command: name, io: io) else { return .usage }
        let client = WebSearchClient(
            base: base, http: connection.http(redirects: .deliver), tokens: connection.tokens)
        // Without --no-save the store is the history; with it, a store in memory.
        let asker = WebSearchAsker(client: client, store: store, ids: ChatClientStack.ids, now: ChatClientStack.now)
        let search: SavedWebSearch
        var status = ExitCode.success
        var savedId: String?
        switch await asker.ask(query) {
        case .failed(let error):
            return failed(error, connection: connection, io: io)
        case .saved(let saved):
            search = SavedWebSearch(saved)
            if save {
                savedId = saved.id
                io.writeError("\(name): web search \(saved.id)\n")
            }
        case .notSaved(let unsaved, let reason):
            search = SavedWebSearch(unsaved)
            io.writeError("\(name): the web search could not be saved: \(reason)\n")
            status = .cannotCreate
        }
        if json {
            io.writeOutput(HistoryJSON.document(HistoryJSON.webSearch(search, id: savedId)))
        } else {
            let terminal = TerminalOutput(io: io)
            let markdown = TerminalMarkdownRenderer(width: terminal.columns, color: terminal.isStyled)
            let text =
                terminal.isTerminal
                ? HistoryTranscript.answer(search, reply: { markdown.render(markdown: $0) })
                : HistoryTranscript.answer(search)
            io.writeOutput(text)
        }
        return status
    }

    /// Says why the search failed and returns its status: 69 when the route or the server
    /// is not there, 76 when the server refused or broke the contract.
    private static func failed(_ error: WebSearchError, connection: ServerTarget.Connection, io: CommandIO)
        -> ExitCode
    {
        switch error {
        case .notOffered:
            // Remembered as a Sybil server, yet without the route: ask again next time.
            ServerTarget.Connection.discovery(io: io).forget(connection.baseURL)
            io.writeError("\(name): \(ServerSurface.webSearch.notOfferedSentence(server: connection.serverName))\n")
            return .unavailable
        case .transport:
            io.writeError("\(name): \(TerminalText.oneLine(error.description))\n")
            return .unavailable
        case .rejected(let status, _):
            io.writeError("\(name): \(TerminalText.oneLine(error.description))\n")
            if status == 401 || status == 403 { return .permissionDenied }
            return (500...599).contains(status) ? .unavailable : .protocolError
        case .malformedAnswer, .redirectRefused:
            io.writeError("\(name): \(TerminalText.oneLine(error.description))\n")
            return .protocolError
        }
    }
}

extension SavedWebSearch {
    /// The record of a web search asked here, for the history's printers.
    init(_ result: WebSearchResult) {
        self.init(
            id: result.id, query: result.query, answer: result.answer, sources: result.sources,
            createdAt: result.createdAt)
    }
}
