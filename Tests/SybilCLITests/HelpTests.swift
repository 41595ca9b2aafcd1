import Testing

/// Help texts are part of the interface: each is compared with its golden file verbatim.
@Suite("Help text", .timeLimit(.minutes(2)))
struct HelpTests {
    @Test(
        "help is printed verbatim",
        arguments: [
            (["--help"], "sybil-help.txt"),
            (["-h"], "sybil-help.txt"),
            (["help"], "sybil-help.txt"),
            ([], "sybil-help.txt"),
            (["app", "--help"], "app-help.txt"),
            (["--in-memory", "--help"], "app-help.txt"),
            (["debug", "--help"], "debug-help.txt"),
            (["debug"], "debug-help.txt"),
            (["debug", "envelope", "--help"], "debug-envelope-help.txt"),
            (["debug", "envelope", "-h"], "debug-envelope-help.txt"),
            (["debug", "sse", "--help"], "debug-sse-help.txt"),
            (["debug", "sse", "--chunk-bytes", "4", "-h"], "debug-sse-help.txt"),
            (["debug", "ws-echo", "--help"], "debug-ws-echo-help.txt"),
            (["ask", "--help"], "ask-help.txt"),
            (["ask", "--model", "m", "-h"], "ask-help.txt"),
            (["serve", "--help"], "serve-help.txt"),
            (["serve", "--port", "0", "-h"], "serve-help.txt"),
            (["workspaces"], "workspaces-help.txt"),
            (["workspaces", "--help"], "workspaces-help.txt"),
            (["workspaces", "list", "--help"], "workspaces-list-help.txt"),
            (["workspaces", "open", "--no-follow", "-h"], "workspaces-open-help.txt"),
            (["workspaces", "send", "--help"], "workspaces-send-help.txt"),
            (["agent"], "agent-help.txt"),
            (["agent", "--help"], "agent-help.txt"),
            (["agent", "send", "--help"], "agent-send-help.txt"),
            (["agent", "send", "--attach", "x", "-h"], "agent-send-help.txt"),
            (["agent", "tail", "--help"], "agent-tail-help.txt"),
            (["agent", "retry", "--help"], "agent-retry-help.txt"),
            (["agent", "resend-all", "--help"], "agent-resend-all-help.txt"),
            (["agent", "download", "--help"], "agent-download-help.txt"),
            (["agent", "discard", "--help"], "agent-discard-help.txt"),
            (["agent", "draft", "--help"], "agent-draft-help.txt"),
            (["agent", "preview", "--help"], "agent-preview-help.txt"),
            (["profile"], "profile-help.txt"),
            (["profile", "--help"], "profile-help.txt"),
            (["profile", "add", "--help"], "profile-add-help.txt"),
            (["models", "--help"], "models-help.txt"),
        ])
    func help(arguments: [String], file: String) async throws {
        let test = TestIO()
        let status = await test.run(arguments)
        #expect(status == 0)
        #expect(test.stdout == (try golden(file)))
        #expect(test.stderr == "")
    }

    @Test func version() async {
        let test = TestIO()
        #expect(await test.run("--version") == 0)
        #expect(test.stdout == "sybil 0.1.0\n")
    }
}
