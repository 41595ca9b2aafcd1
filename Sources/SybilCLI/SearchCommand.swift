import SybilClient
import SybilStore
import SybilTimeline

/// `sybil search QUERY [--limit N] [--json]`: searches the local chat history (titles, messages, saved
/// web searches) through the same search model the apps use, and prints one line per hit (or
/// one JSON array).
/// Needs no server.
enum SearchCommand {
    static let name = "sybil search"
    /// The narrowest line a hit is laid out in (room for a short title and some excerpt).
    static let minimumColumns = 20
    /// Titles take at most this many columns of a line.
    static let titleColumns = 32

    /// What the command line asked for.
    struct Request: Equatable {
        var query: String
        var limit = 100
        var json = false
    }

    static func run(_ arguments: [String], io: CommandIO) async throws(UsageError) -> ExitCode {
        guard let request = try parse(arguments) else {
            io.writeOutput(spec.help)
            return .success
        }
        return await search(request, io: io)
    }

    /// Runs the search through the search model and prints what it shows.
    @MainActor
    private static func search(_ request: Request, io: CommandIO) async -> ExitCode {
        let store: SQLiteChatHistory
        switch ChatHistoryLocation.openForReading(io: io, command: name) {
        case .store(let opened): store = opened
        case .none:
            if request.json { io.writeOutput(HistoryJSON.document(.array([]))) }
            io.writeError("no matches\n")
            return .success
        case .failed: return .noInput
        }
        let model = ChatSearchModel(store: store, clock: ContinuousClock(), limit: request.limit)
        model.query = request.query
        model.submit()
        await model.settle()
        if let error = model.errorMessage {
            io.writeError("\(name): \(error)\n")
            return .noInput
        }
        if request.json {
            io.writeOutput(HistoryJSON.document(.array(model.results.map(HistoryJSON.hit))))
        } else {
            print(model, io: io)
        }
        if model.results.isEmpty { io.writeError("no matches\n") }
        if model.hasMore { io.writeError("more than \(request.limit) match; refine the query\n") }
        return .success
    }

    /// The request, or `nil` when help was asked for.
    static func parse(_ arguments: [String]) throws(UsageError) -> Request? {
        guard let parsed = try spec.parse(arguments) else { return nil }
        let words = parsed.positionals
        let limit = parsed.options.limit
        guard !words.isEmpty else { throw UsageError(command: name, message: "needs a QUERY") }
        return Request(query: words.joined(separator: " "), limit: limit, json: parsed.options.json)
    }

    /// `TITLE — EXCERPT` per hit, fitted to `COLUMNS` (default 80); a saved web search's
    /// line starts with ``webMarker`` and its title is the query.
    @MainActor
    private static func print(_ model: ChatSearchModel<ContinuousClock>, io: CommandIO) {
        let style = TerminalStyle(io: io)
        let width = max(minimumColumns, TerminalOutput(io: io).columns)
        var output = ""
        for hit in model.results {
            var marker = ""
            if case .webSearch = hit.source { marker = webMarker }
            let title = SearchExcerpt(text: hit.title, terms: hit.terms, width: titleColumns - marker.count)
            let excerpt = model.excerpt(hit, width: max(10, width - marker.count - title.columns - 3))
            output += "\(marker)\(style.render(title)) — \(style.render(excerpt))\n"
        }
        io.writeOutput(output)
    }

    /// What starts the line of a saved web search's hit.
    static let webMarker = "[web] "
}
