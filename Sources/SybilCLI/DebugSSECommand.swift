import SybilCore
import SybilWire

/// `sybil debug sse [--chunk-bytes N] [FILE]`: one JSON line per event, then an end line.
enum DebugSSECommand {
    static let name = "sybil debug sse"

    static func run(_ arguments: [String], io: CommandIO) throws(UsageError) -> ExitCode {
        guard let parsed = try CommandSpec.debugSSE.parse(arguments) else {
            io.writeOutput(CommandSpec.debugSSE.help)
            return .success
        }
        let file = parsed.positionals.first
        let chunkBytes = parsed.integer(chunkBytesOption)
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
