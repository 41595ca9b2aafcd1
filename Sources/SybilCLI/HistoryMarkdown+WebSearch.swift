import SybilStore

extension HistoryMarkdown {
    /// A saved web search as Markdown (`history show ID --markdown`): the query as a heading,
    /// a line with the id and time, the answer as written, then `**Sources**` as a numbered
    /// list of links (the URL as the link's text too, so it is seen before it is followed).
    static func webSearch(_ search: SavedWebSearch, time: (Int64) -> String) -> String {
        let query = search.query.split(whereSeparator: \.isNewline).joined(separator: " ")
        var output = "# \(query)\n\n`\(search.id)` · web search · saved \(time(search.createdAt))\n"
        var answer = Substring(search.answer)
        while answer.last?.isNewline == true { answer.removeLast() }
        output += "\n\(answer)\n"
        guard !search.sources.isEmpty else { return output }
        output += "\n**Sources**\n\n"
        for (index, source) in search.sources.enumerated() {
            let title = source.title.split(whereSeparator: \.isNewline).joined(separator: " ")
            output += "\(index + 1). \(title.isEmpty ? "(untitled)" : title) <\(source.url)>\n"
        }
        return output
    }
}
