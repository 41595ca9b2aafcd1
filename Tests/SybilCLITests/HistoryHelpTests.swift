import Testing

/// `sybil search` and `sybil history` help, compared with their golden files verbatim.
@Suite("Help text: search and history", .timeLimit(.minutes(2)))
struct HistoryHelpTests {
    @Test(
        "help is printed verbatim",
        arguments: [
            (["search", "--help"], "search-help.txt"),
            (["search", "--limit", "5", "-h"], "search-help.txt"),
            (["history", "--help"], "history-help.txt"),
            (["history", "-h"], "history-help.txt"),
            (["history", "list", "--help"], "history-list-help.txt"),
            (["history", "list", "--limit", "5", "-h"], "history-list-help.txt"),
            (["history", "show", "--help"], "history-show-help.txt"),
            (["history", "show", "ID", "-h"], "history-show-help.txt"),
            (["history", "export", "--help"], "history-export-help.txt"),
            (["history", "export", "--json", "-h"], "history-export-help.txt"),
            (["history", "delete", "--help"], "history-delete-help.txt"),
            (["history", "delete", "ID", "-h"], "history-delete-help.txt"),
        ])
    func help(arguments: [String], file: String) async throws {
        let test = TestIO()
        #expect(await test.run(arguments) == 0)
        #expect(test.stdout == (try golden(file)))
        #expect(test.stderr == "")
    }
}
