import Foundation
import SybilServer
import SybilStore

/// What the client commands (`sybil workspaces …`, `sybil agent …`, `sybil records sync`)
/// share: the server options, parsing a subcommand's arguments, and connecting. Without
/// `--api-url` the embedded reference server answers, with its data under
/// `$XDG_DATA_HOME/sybil/embedded` (`--in-memory` for none) so that what one command sends
/// the next one shows.
enum ClientCommand {
    /// The options every client subcommand takes: the server's and `--in-memory`.
    struct Options: CommandOptions {
        var server = ServerTarget.Options()
        var inMemory = false
    }

    /// `--in-memory`.
    static let inMemoryOption = OptionSpec<Options>.flag(
        "--in-memory", into: \.inMemory, help: "Give the embedded server no data on disk.")

    /// The options every client subcommand takes, after its own; `example` is shown in the
    /// help of `--api-url`.
    static func options(apiURLExample example: String? = nil) -> [OptionSpec<Options>] {
        ServerTarget.options(apiURLExample: example).within(\.server) + [inMemoryOption, .help]
    }

    /// A client subcommand's own options, then the common ones bound to its ``ClientCommandOptions/client``.
    static func options<Options: ClientCommandOptions>(
        _ own: [OptionSpec<Options>], apiURLExample example: String? = nil
    ) -> [OptionSpec<Options>] {
        own + options(apiURLExample: example).within(\Options.client)
    }

    /// Options every client subcommand takes.
    struct Common {
        var target: ServerTarget
        var inMemory = false

        /// `options` over the environment, checked; `command` names usage errors.
        init(environment: [String: String], options: Options, command: String) throws(UsageError) {
            target = ServerTarget(environment: environment, options: options.server)
            inMemory = options.inMemory
            try target.validate(command: command)
            if inMemory && target.apiURL != nil {
                throw UsageError(
                    command: command,
                    message: "--in-memory is for the embedded server, not \(target.choice?.origin ?? "--api-url")")
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
    static func parse<Options: ClientCommandOptions>(
        _ arguments: [String], environment: [String: String], spec: CommandSpec<Options>
    ) throws(UsageError) -> (common: Common, parsed: ParsedArguments<Options>)? {
        guard let parsed = try spec.parse(arguments) else { return nil }
        return (try Common(environment: environment, options: parsed.options.client, command: spec.name), parsed)
    }

    /// Runs a subcommand: parses (`nil` prints the help of `spec`), connects, runs `body`,
    /// disconnects.
    static func run<Request>(
        _ arguments: [String], io: CommandIO, spec: some DeclaredCommand, common: (Request) -> Common,
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

/// The options struct of a client subcommand: its own options and the shared ones in
/// ``client``, bound through ``ClientCommand/options(apiURLExample:)`` lifted into it.
protocol ClientCommandOptions: CommandOptions {
    /// The server options and `--in-memory`.
    var client: ClientCommand.Options { get set }
}

extension ClientCommand.Options: ClientCommandOptions {
    /// A subcommand with no options of its own parses straight into these.
    var client: ClientCommand.Options {
        get { self }
        set { self = newValue }
    }
}
