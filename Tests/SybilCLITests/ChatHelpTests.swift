import Testing

/// `sybil quick` help, compared with its golden file verbatim (`sybil ask` is in HelpTests).
@Suite("Help text: quick", .timeLimit(.minutes(2)))
struct ChatHelpTests {
    @Test(
        "help is printed verbatim",
        arguments: [
            (["quick", "--help"], "quick-help.txt"),
            (["quick", "--model", "m", "-h"], "quick-help.txt"),
            (["ask", "-c", "--help"], "ask-help.txt"),
        ])
    func help(arguments: [String], file: String) async throws {
        let test = TestIO()
        #expect(await test.run(arguments) == 0)
        #expect(test.stdout == (try golden(file)))
        #expect(test.stderr == "")
    }
}
