/// `sybil debug envelope|sse|ws-echo`: decoders and a WebSocket echo client for checking
/// wire data by hand or from scripts.
enum DebugCommand {
    static let name = "sybil debug"

    /// The subcommands, one line each.
    static let table = CommandTable(
        group: spec,
        entries: [
            .init("envelope", DebugEnvelopeCommand.run), .init("sse", DebugSSECommand.run),
            .init("ws-echo", DebugWebSocketEchoCommand.run),
        ])

    static func run(_ arguments: [String], io: CommandIO) async throws(UsageError) -> ExitCode {
        try await table.run(arguments, io: io)
    }
}
