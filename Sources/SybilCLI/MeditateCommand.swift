import SybilClient
import SybilMotion

/// `sybil meditate [--minutes N] [--dark|--light]`: a calm timer over the breathing scene
/// that saves a meditation record on this device (seed 004: local first, `sybil records
/// sync` uploads it) when the time is up or when Ctrl+C ends it early, with the time spent.
/// Only this command touches the terminal and the clock; the session's rules are
/// ``MeditationSession``'s.
enum MeditateCommand {
    static let name = "sybil meditate"
    /// A slower rhythm than `breathe`'s exercise: in 5 s, out 7 s, five breaths a minute.
    static let cycle = try! BreathingCycle(inhale: 5, hold: 0, exhale: 7)

    static func run(_ arguments: [String], io: CommandIO) async throws(UsageError) -> ExitCode {
        try await run(arguments, io: io, isTerminal: io.outputIsTerminal, clock: ContinuousClock())
    }

    /// The command with the terminal check and the clock injected (tests pass a manual clock
    /// and say whether the output is a terminal).
    static func run<C: Clock>(_ arguments: [String], io: CommandIO, isTerminal: Bool, clock: C)
        async throws(UsageError) -> ExitCode where C.Duration == Duration
    {
        guard let options = try spec.parse(arguments)?.options else {
            io.writeOutput(spec.help)
            return .success
        }
        // The option's range is the session's, so a parsed value always makes a session.
        guard let session = MeditationSession(minutes: options.minutes) else {
            throw UsageError(command: name, message: "--minutes is out of range")
        }
        guard isTerminal else {
            throw UsageError(
                command: name,
                message:
                    "standard output is not a terminal; to save a session without the timer, use `sybil records add meditation --seconds N`"
            )
        }
        let output = TerminalOutput(environment: io.environment, isTerminal: true, size: io.terminalSize())
        let size = (columns: output.columns, rows: output.rows)
        let elapsed = await BreatheAnimation(
            seconds: session.plannedSeconds, scene: BreatheCommand.scene(options.theme, size, cycle: cycle),
            grid: BreathingSceneGridRenderer(columns: size.columns, rows: size.rows - 1, color: output.isStyled),
            io: io,
            status: { _, time in "meditating  \(session.timer(after: time))  (Ctrl+C ends and saves)" }
        ).run(clock: clock)
        return await save(session, elapsed: elapsed, io: io)
    }

    /// Saves the session's record, or says why there is none.
    @MainActor
    static func save(_ session: MeditationSession, elapsed: Double, io: CommandIO) async -> ExitCode {
        guard let seconds = session.recordedSeconds(after: elapsed) else {
            io.writeError("\(name): ended before a second had passed; nothing saved\n")
            return .success
        }
        guard let (model, _) = await RecordsCommand.model(command: name, io: io) else { return .cannotCreate }
        do {
            let record = try await model.logMeditation(seconds: seconds)
            io.writeOutput("saved \(RecordsCommand.summary(record))  \(record.id)\n")
            io.writeError(RecordsCommand.unsyncedNote(command: name, count: model.unsyncedCount))
            return .success
        } catch {
            io.writeError("\(name): the session of \(seconds) s could not be saved: \(error)\n")
            return .cannotCreate
        }
    }
}
