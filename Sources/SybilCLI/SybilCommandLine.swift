import SybilCore
import SybilWire

/// The `sybil` command line: parses arguments, runs the command, returns the exit status.
/// Everything it reads and writes goes through ``CommandIO``, so tests run it in-process.
public enum SybilCommandLine {
    /// The version printed by `--version`.
    public static let version = "0.1.0"

    /// Runs `sybil` with `arguments` (without the program name).
    public static func run(_ arguments: [String], io: CommandIO) async -> Int32 {
        let status: Int32
        do {
            status = try await dispatch(arguments, io: io).rawValue
        } catch {
            io.writeError(error.text)
            return ExitCode.usage.rawValue
        }
        // What the command printed did not all arrive: a script must not take it for success.
        if status == ExitCode.success.rawValue, let failure = io.outputFailure() {
            io.writeError("sybil: standard output could not be written: \(failure).\n")
            return ExitCode.cannotCreate.rawValue
        }
        return status
    }

    /// Every command, one line each: its name and what runs it with the words after it.
    static let commands = CommandTable(
        group: spec,
        entries: [
            .init("app", TerminalAppCommand.run),
            .init("ask", AskCommand.run),
            .init("quick", QuickCommand.run),
            .init("serve", ServeCommand.run),
            .init("agent", AgentCommand.run),
            .init("workspaces", WorkspacesCommand.run),
            .init("records", RecordsCommand.run),
            .init("keys", KeysCommand.run),
            .init("profile", ProfileCommand.run),
            .init("models", ModelsCommand.run),
            .init("search", SearchCommand.run),
            .init("history", HistoryCommand.run),
            .init("debug", DebugCommand.run),
            .init("breathe", BreatheCommand.run),
            .init("meditate", MeditateCommand.run),
        ],
        unknown: "command")

    /// Every command's and subcommand's declaration, for the checks that cover them all.
    static let declarations: [any DeclaredCommand] = [
        spec, TerminalAppCommand.spec, AskCommand.spec, QuickCommand.spec, ServeCommand.spec, AgentCommand.spec,
        AgentSendCommand.spec, AgentTailCommand.spec, AgentRetryCommand.retrySpec, AgentRetryCommand.resendAllSpec,
        AgentDownloadCommand.spec, AgentPreviewCommand.spec, AgentDraftCommand.spec, AgentDiscardCommand.spec,
        WorkspacesCommand.spec, WorkspacesListCommand.spec, WorkspacesOpenCommand.spec, WorkspacesSendCommand.spec,
        SearchCommand.spec, HistoryCommand.spec, HistoryCommand.listSpec, HistoryCommand.showSpec,
        HistoryCommand.exportSpec, HistoryCommand.deleteSpec, RecordsCommand.spec, RecordsAddCommand.spec,
        RecordsListCommand.spec, RecordsSyncCommand.spec, BreatheCommand.spec, MeditateCommand.spec, DebugCommand.spec,
        DebugEnvelopeCommand.spec, DebugSSECommand.spec, DebugWebSocketEchoCommand.spec, KeysCommand.spec,
        KeysCommand.setSpec, KeysCommand.listSpec, KeysCommand.removeSpec, ProfileCommand.spec, ProfileCommand.addSpec,
        ProfileCommand.listSpec, ProfileCommand.useSpec, ProfileCommand.removeSpec, ModelsCommand.spec,
    ]

    private static func dispatch(_ arguments: [String], io: CommandIO) async throws(UsageError) -> ExitCode {
        guard let first = arguments.first else {
            // On a terminal, `sybil` is the app; anywhere else it explains itself.
            if io.inputIsTerminal && io.outputIsTerminal { return try await TerminalAppCommand.run([], io: io) }
            io.writeOutput(spec.help)
            return .success
        }
        if TerminalAppCommand.takes(arguments) { return try await TerminalAppCommand.run(arguments, io: io) }
        switch first {
        case "help":
            io.writeOutput(spec.help)
            return .success
        case "--version":
            io.writeOutput("sybil \(version)\n")
            return .success
        default:
            return try await commands.run(arguments, io: io)
        }
    }

    /// Reads all of an input, reporting an unreadable one on standard error.
    static func readInput(_ path: String?, io: CommandIO) -> [UInt8]? {
        do {
            return try io.readAll(path)
        } catch {
            io.writeError("sybil: \(error)\n")
            return nil
        }
    }

    /// `nil` for standard input (`-` or no FILE), else the path.
    static func inputPath(_ file: String?) -> String? {
        file == "-" ? nil : file
    }
}
