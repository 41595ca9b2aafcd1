import SybilCore
import SybilWire

/// `sybil debug envelope [FILE]`: strict decode, normalised output, exit 65 on invalid input.
enum DebugEnvelopeCommand {
    static let name = "sybil debug envelope"

    static func run(_ arguments: [String], io: CommandIO) throws(UsageError) -> ExitCode {
        guard let parsed = try spec.parse(arguments) else {
            io.writeOutput(spec.help)
            return .success
        }
        let file = parsed.positionals.first
        guard let bytes = SybilCommandLine.readInput(SybilCommandLine.inputPath(file), io: io) else {
            return .noInput
        }
        do {
            let envelope = try WorkspaceChatLoadEnvelope.decode(json: bytes)
            io.writeOutput(JSONWriter(style: .pretty).string(from: envelope.jsonValue) + "\n")
            return .success
        } catch {
            io.writeError("sybil: invalid envelope: \(error)\n")
            return .invalidData
        }
    }
}
