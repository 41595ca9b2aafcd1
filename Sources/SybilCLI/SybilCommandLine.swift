import SybilCore
import SybilWire

/// The `sybil` command line: parses arguments, runs the command, returns the exit status.
/// Everything it reads and writes goes through ``CommandIO``, so tests run it in-process.
public enum SybilCommandLine {
    /// The version printed by `--version`.
    public static let version = "0.1.0"

    /// Runs `sybil` with `arguments` (without the program name).
    public static func run(_ arguments: [String], io: CommandIO) async -> Int32 {
        do {
            return try await dispatch(arguments, io: io).rawValue
        } catch {
            io.writeError(error.text)
            return ExitCode.usage.rawValue
        }
    }

    private static func dispatch(_ arguments: [String], io: CommandIO) async throws(UsageError) -> ExitCode {
        guard let first = arguments.first else {
            // On a terminal, `sybil` is the app; anywhere else it explains itself.
            if io.inputIsTerminal && io.outputIsTerminal { return try await TerminalAppCommand.run([], io: io) }
            io.writeOutput(CommandSpec.sybil.help)
            return .success
        }
        if TerminalAppCommand.takes(arguments) { return try await TerminalAppCommand.run(arguments, io: io) }
        let rest = Array(arguments.dropFirst())
        switch first {
        case "app": return try await TerminalAppCommand.run(rest, io: io)
        case "-h", "--help", "help":
            io.writeOutput(CommandSpec.sybil.help)
            return .success
        case "--version":
            io.writeOutput("sybil \(version)\n")
            return .success
        case "ask":
            return try await AskCommand.run(rest, io: io)
        case "quick": return try await QuickCommand.run(rest, io: io)
        case "serve":
            return try await ServeCommand.run(rest, io: io)
        case "agent":
            return try await AgentCommand.run(rest, io: io)
        case "workspaces":
            return try await WorkspacesCommand.run(rest, io: io)
        case "records": return try await RecordsCommand.run(rest, io: io)
        case "keys": return try await KeysCommand.run(rest, io: io)
        case "profile": return try await ProfileCommand.run(rest, io: io)
        case "models": return try await ModelsCommand.run(rest, io: io)
        case "search": return try await SearchCommand.run(rest, io: io)
        case "history": return try await HistoryCommand.run(rest, io: io)
        case "debug":
            return try await debug(rest, io: io)
        case "breathe":
            return try await BreatheCommand.run(rest, io: io)
        case "meditate": return try await MeditateCommand.run(rest, io: io)
        default:
            throw UsageError(command: "sybil", message: "unknown command '\(first)'")
        }
    }

    private static func debug(_ arguments: [String], io: CommandIO) async throws(UsageError) -> ExitCode {
        guard let first = arguments.first else {
            io.writeOutput(CommandSpec.debug.help)
            return .success
        }
        let rest = Array(arguments.dropFirst())
        switch first {
        case "-h", "--help":
            io.writeOutput(CommandSpec.debug.help)
            return .success
        case "envelope":
            return try DebugEnvelopeCommand.run(rest, io: io)
        case "sse":
            return try DebugSSECommand.run(rest, io: io)
        case "ws-echo":
            return try await DebugWebSocketEchoCommand.run(rest, io: io)
        default:
            throw UsageError(command: "sybil debug", message: "unknown subcommand '\(first)'")
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
