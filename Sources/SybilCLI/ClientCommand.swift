import Foundation
import SybilServer
import SybilStore

/// What the client commands (`sybil workspaces …`, `sybil agent …`, `sybil records sync`)
/// share: the server options, parsing a subcommand's arguments, and connecting. Without
/// `--api-url` the embedded reference server answers, with its data under
/// `$XDG_DATA_HOME/sybil/embedded` (`--in-memory` for none) so that what one command sends
/// the next one shows.
enum ClientCommand {
    /// `--in-memory`.
    static let inMemoryOption = OptionSpec.flag("--in-memory", help: "Give the embedded server no data on disk.")

    /// The options every client subcommand takes, after its own; `example` is shown in the
    /// help of `--api-url`.
    static func options(apiURLExample example: String? = nil) -> [OptionSpec] {
        [
            ServerTarget.profileOption, ServerTarget.apiURLOption(example: example), ServerTarget.tokenOption,
            inMemoryOption, .help,
        ]
    }

    /// Options every client subcommand takes.
    struct Common {
        var target: ServerTarget
        var inMemory = false

        /// The options `parsed` holds over the environment, checked.
        init(environment: [String: String], parsed: ParsedArguments) throws(UsageError) {
            target = ServerTarget(environment: environment, parsed: parsed)
            inMemory = parsed.given(ClientCommand.inMemoryOption)
            try target.validate(command: parsed.command)
            if inMemory && target.apiURL != nil {
                throw parsed.error(
                    "--in-memory is for the embedded server, not \(target.choice?.origin ?? "--api-url")")
            }
        }
    }

    /// Connects as `common` says: the embedded desktop keeps its data on disk unless
    /// `--in-memory`, and runs turns at a readable pace.
    @MainActor
    static func connect(_ common: Common, command: String, io: CommandIO) -> ServerTarget.Connection? {
        common.target.connect(command: command, io: io) { options in
            options.pace = .milliseconds(15)
            options.storage =
                common.inMemory
                ? .inMemory : .directory(XDGDirectories(environment: io.environment).sybilData + "/embedded")
        }
    }

    /// Parses a subcommand's arguments with `spec` and reads the common options; `nil` when
    /// help was asked for.
    static func parse(_ arguments: [String], environment: [String: String], spec: CommandSpec) throws(UsageError)
        -> (common: Common, parsed: ParsedArguments)?
    {
        guard let parsed = try spec.parse(arguments) else { return nil }
        return (try Common(environment: environment, parsed: parsed), parsed)
    }

    /// Runs a subcommand: parses (`nil` prints the help of `spec`), connects, runs `body`,
    /// disconnects.
    static func run<Request>(
        _ arguments: [String], io: CommandIO, spec: CommandSpec, common: (Request) -> Common,
        parse: ([String], [String: String]) throws(UsageError) -> Request?,
        _ body: @MainActor (Request, ServerTarget.Connection) async -> ExitCode
    ) async throws(UsageError) -> ExitCode {
        guard let request = try parse(arguments, io.environment) else {
            io.writeOutput(spec.help)
            return .success
        }
        guard let connection = await connect(common(request), command: spec.name, io: io) else { return .unavailable }
        let status = await body(request, connection)
        await connection.close()
        return status
    }
}
