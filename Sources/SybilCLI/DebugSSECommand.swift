import SybilCore
import SybilWire

/// `sybil debug sse [--chunk-bytes N] [FILE]`: one JSON line per event, then an end line.
enum DebugSSECommand {
    static let name = "sybil debug sse"
    static let chunkBytesRange = 1...16_777_216

    static func run(_ arguments: [String], io: CommandIO) throws(UsageError) -> ExitCode {
        var chunkBytes: Int?
        let request = try ArgumentCursor.fileCommand(arguments, command: name) {
            (cursor, option, inlineValue) throws(UsageError) -> Bool in
            guard option == "--chunk-bytes" else { return false }
            let text = try cursor.value(for: option, inlineValue: inlineValue)
            guard let value = Int(text), chunkBytesRange.contains(value) else {
                throw UsageError(
                    command: name,
                    message:
                        "--chunk-bytes must be a whole number from 1 to \(chunkBytesRange.upperBound), got '\(text)'")
            }
            chunkBytes = value
            return true
        }
        guard case .run(let file) = request else {
            io.writeOutput(HelpText.debugSSE)
            return .success
        }
        var parser = EventStreamParser()
        let writer = JSONWriter()
        let emit: (ServerSentEvent) -> Void = { event in
            let line: JSONValue = [
                "type": .string(event.type), "data": .string(event.data), "lastEventId": .string(event.lastEventId),
            ]
            io.writeOutput(writer.string(from: line) + "\n")
        }
        do {
            try io.readChunks(SybilCommandLine.inputPath(file)) { chunk in
                guard let size = chunkBytes else {
                    parser.feed(chunk, dispatch: emit)
                    return
                }
                var start = 0
                while start < chunk.count {
                    let end = min(start + size, chunk.count)
                    parser.feed(chunk[start..<end], dispatch: emit)
                    start = end
                }
            }
        } catch {
            io.writeError("sybil: \(error)\n")
            return .noInput
        }
        parser.finish()
        let end: JSONValue = [
            "end": true,
            "lastEventId": .string(parser.lastEventId),
            "reconnectionTime": parser.reconnectionTime.map { .number(JSONNumber(Int64($0))) } ?? .null,
        ]
        io.writeOutput(writer.string(from: end) + "\n")
        return .success
    }
}
