import Foundation
import SybilServer
import SybilStore

/// What the client commands (`sybil workspaces …`, `sybil agent …`) share: the server
/// options, parsing a subcommand's arguments, and connecting. Without `--api-url` the
/// embedded reference server answers, with its data under `$XDG_DATA_HOME/sybil/embedded`
/// (`--in-memory` for none) so that what one command sends the next one shows.
enum ClientCommand {
    /// Options every client subcommand takes.
    struct Common {
        var target: ServerTarget
        var inMemory = false

        init(environment: [String: String]) {
            target = ServerTarget(environment: environment)
        }

        /// Takes a common option; returns whether `option` was one.
        mutating func parse(_ option: String, inlineValue: String?, cursor: inout ArgumentCursor) throws(UsageError)
            -> Bool
        {
            if try target.parse(option, inlineValue: inlineValue, cursor: &cursor) { return true }
            guard option == "--in-memory" else { return false }
            inMemory = true
            return true
        }

        mutating func validate(command: String) throws(UsageError) {
            try target.validate(command: command)
            if inMemory && target.apiURL != nil {
                throw UsageError(command: command, message: "--in-memory is for the embedded server, not --api-url")
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

    /// Walks a subcommand's arguments: positional words, `-h`/`--help` (then `nil`), the
    /// common options, and the subcommand's own through `own` (which returns whether it took
    /// the option); validates the common options at the end.
    static func parse(
        _ arguments: [String], environment: [String: String], command: String,
        own: (String, String?, inout ArgumentCursor) throws(UsageError) -> Bool = { _, _, _ in false }
    ) throws(UsageError) -> (common: Common, words: [String])? {
        var cursor = ArgumentCursor(arguments, command: command)
        var common = Common(environment: environment)
        var words: [String] = []
        while let next = cursor.next() {
            switch next {
            case .positional(let word): words.append(word)
            case .option(let option, let inline):
                if option == "-h" || option == "--help" { return nil }
                if try own(option, inline, &cursor) { continue }
                guard try common.parse(option, inlineValue: inline, cursor: &cursor) else {
                    throw cursor.unknown(option)
                }
            }
        }
        try common.validate(command: command)
        return (common, words)
    }

    /// Like ``parse(_:environment:command:own:)`` for a subcommand that takes options only.
    static func parseOptionsOnly(_ arguments: [String], environment: [String: String], command: String)
        throws(UsageError) -> (common: Common, words: [String])?
    {
        guard let parsed = try parse(arguments, environment: environment, command: command) else { return nil }
        guard parsed.words.isEmpty else {
            throw UsageError(command: command, message: "takes options only, no arguments")
        }
        return parsed
    }

    /// Runs a subcommand: parses (`nil` prints `help`), connects, runs `body`, disconnects.
    static func run<Request>(
        _ arguments: [String], io: CommandIO, command: String, help: String, common: (Request) -> Common,
        parse: ([String], [String: String]) throws(UsageError) -> Request?,
        _ body: @MainActor (Request, ServerTarget.Connection) async -> ExitCode
    ) async throws(UsageError) -> ExitCode {
        guard let request = try parse(arguments, io.environment) else {
            io.writeOutput(help)
            return .success
        }
        guard let connection = await connect(common(request), command: command, io: io) else { return .unavailable }
        let status = await body(request, connection)
        await connection.close()
        return status
    }

}
