import SybilClient

/// A command made of subcommands: its declaration (for its help) and one line per subcommand
/// naming what runs it. `sybil` itself, `sybil agent`, `sybil history` and the other groups
/// dispatch through one.
struct CommandTable: Sendable {
    /// What runs a subcommand with the words after its name.
    typealias Run = @Sendable (_ arguments: [String], _ io: CommandIO) async throws(UsageError) -> ExitCode

    /// One line of the table.
    struct Entry: Sendable {
        let name: String
        let run: Run

        init(_ name: String, _ run: @escaping Run) {
            self.name = name
            self.run = run
        }

        /// A client subcommand that runs only when the chosen server offers `surface`
        /// (``SurfaceGate``); `spec` reads the server options it is given.
        static func gated<Options: ClientCommandOptions>(
            _ name: String, _ surface: ServerSurface, _ spec: CommandSpec<Options>, _ run: @escaping Run
        ) -> Entry {
            Entry(name) { arguments, io throws(UsageError) in
                try await SurfaceGate.run(surface, spec: spec, arguments: arguments, io: io) {
                    () async throws(UsageError) -> ExitCode in try await run(arguments, io)
                }
            }
        }
    }

    /// The group's declaration; its help is printed for `-h`, `--help` and, unless
    /// ``bare`` says otherwise, no words at all.
    let group: any DeclaredCommand
    /// The subcommands.
    let entries: [Entry]
    /// What runs when no subcommand is named; `nil` prints the group's help.
    var bare: Run?
    /// What an entry is called in the error for a word that names none.
    var unknown = "subcommand"

    /// Runs the subcommand the first word names, with the words after it.
    func run(_ arguments: [String], io: CommandIO) async throws(UsageError) -> ExitCode {
        guard let first = arguments.first else {
            if let bare { return try await bare([], io) }
            io.writeOutput(group.help)
            return .success
        }
        if first == "-h" || first == "--help" {
            io.writeOutput(group.help)
            return .success
        }
        guard let entry = entries.first(where: { $0.name == first }) else {
            throw UsageError(command: group.name, message: "unknown \(unknown) '\(first)'")
        }
        return try await entry.run(Array(arguments.dropFirst()), io)
    }
}
