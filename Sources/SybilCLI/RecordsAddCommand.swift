import SybilClient
import SybilWire

/// `sybil records add mood|breathing|meditation|profile …`: saves one record on this device;
/// nothing waits for a server.
enum RecordsAddCommand {
    static let name = "sybil records add"

    /// What to save.
    enum Request: Equatable {
        case mood(score: Int, note: String?)
        case breathing(seconds: Int, cycles: Int)
        case meditation(seconds: Int)
        case profile(name: String)
    }

    static func run(_ arguments: [String], io: CommandIO) async throws(UsageError) -> ExitCode {
        guard let request = try parse(arguments) else {
            io.writeOutput(spec.help)
            return .success
        }
        return await save(request, io: io)
    }

    /// The record to save, or `nil` when help was asked for. Every value is range-checked
    /// here, before anything is opened.
    static func parse(_ arguments: [String]) throws(UsageError) -> Request? {
        guard let parsed = try spec.parse(arguments) else { return nil }
        let words = parsed.positionals
        let note = parsed.options.note
        let seconds = parsed.options.seconds
        let cycles = parsed.options.cycles
        guard let kind = words.first else {
            throw UsageError(command: name, message: "say what to add: mood, breathing, meditation or profile")
        }
        let values = Array(words.dropFirst())
        func refuse(_ options: [(String, Bool)]) throws(UsageError) {
            for (option, given) in options where given {
                throw UsageError(command: name, message: "\(option) does not apply to \(kind)")
            }
        }
        switch kind {
        case "mood":
            try refuse([("--seconds", seconds != nil), ("--cycles", cycles != nil)])
            guard values.count == 1, let score = Int(values[0]), (1...5).contains(score) else {
                throw UsageError(command: name, message: "mood takes one SCORE, a whole number from 1 to 5")
            }
            if let note, note.utf8.count > Record.maxNoteBytes {
                throw UsageError(
                    command: name,
                    message: "--note may have at most \(Record.maxNoteBytes) bytes, got \(note.utf8.count)")
            }
            return .mood(score: score, note: note)
        case "breathing", "meditation":
            try refuse([("--note", note != nil), ("--cycles", kind == "meditation" && cycles != nil)])
            guard values.isEmpty else { throw UsageError(command: name, message: "\(kind) takes options only") }
            guard let seconds else { throw UsageError(command: name, message: "\(kind) needs --seconds N") }
            return kind == "breathing"
                ? .breathing(seconds: seconds, cycles: cycles ?? 0) : .meditation(seconds: seconds)
        case "profile":
            try refuse([("--note", note != nil), ("--seconds", seconds != nil), ("--cycles", cycles != nil)])
            guard !values.isEmpty else { throw UsageError(command: name, message: "profile needs a NAME") }
            return .profile(name: values.joined(separator: " "))
        default:
            throw UsageError(
                command: name, message: "cannot add '\(kind)'; add mood, breathing, meditation or profile")
        }
    }

    @MainActor
    private static func save(_ request: Request, io: CommandIO) async -> ExitCode {
        guard let (model, _) = await RecordsCommand.model(command: name, io: io) else { return .cannotCreate }
        do {
            let record: Record
            switch request {
            case .mood(let score, let note): record = try await model.logMood(score: score, note: note)
            case .breathing(let seconds, let cycles):
                record = try await model.logBreathing(seconds: seconds, cycles: cycles)
            case .meditation(let seconds): record = try await model.logMeditation(seconds: seconds)
            case .profile(let name): record = try await model.setDisplayName(name)
            }
            io.writeOutput("saved \(RecordsCommand.summary(record))  \(record.id)\n")
            io.writeError(RecordsCommand.unsyncedNote(command: name, count: model.unsyncedCount))
            return .success
        } catch {
            io.writeError("\(name): \(error)\n")
            if case .invalid = error { return .invalidData }
            return .cannotCreate
        }
    }
}
