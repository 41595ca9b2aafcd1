import SybilCore
import SybilWire

/// `sybil debug envelope [FILE]`: strict decode, normalised output, exit 65 on invalid input.
enum DebugEnvelopeCommand {
    static let name = "sybil debug envelope"

    static func run(_ arguments: [String], io: CommandIO) throws(UsageError) -> ExitCode {
        var cursor = ArgumentCursor(arguments, command: name)
        var file: String?
        while let token = cursor.next() {
            switch token {
            case .option(let option, _) where option == "-h" || option == "--help":
                io.writeOutput(HelpText.debugEnvelope)
                return .success
            case .option(let option, _):
                throw cursor.unknown(option)
            case .positional(let argument):
                guard file == nil else {
                    throw UsageError(command: name, message: "takes one FILE, got another: '\(argument)'")
                }
                file = argument
            }
        }
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
