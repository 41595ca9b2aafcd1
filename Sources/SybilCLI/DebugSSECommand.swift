import SybilCore
import SybilWire

/// `sybil debug sse [--chunk-bytes N] [FILE]`: one JSON line per event, then an end line.
enum DebugSSECommand {
    static let name = "sybil debug sse"

    static func run(_ arguments: [String], io: CommandIO) throws(UsageError) -> ExitCode {
        guard let parsed = try spec.parse(arguments) else {
            io.writeOutput(spec.help)
            return .success
        }
        let file = parsed.positionals.first
        let chunkBytes = parsed.options.chunkBytes
        var parser = EventStreamParser()
        let writer = JSONWriter()
        let emit: (ServerSentEvent) -> Void = { event in
            let line: JSONValue = [
                "type": .string(event.type), "data": .string(event.data), "lastEventId": .string(event.lastEventId),
            ]
            io.writeOutput(writer.string(from: line) + "\n")
        }
        var refusal: EventStreamParser.LimitExceeded?
        do {
            try io.readChunks(SybilCommandLine.inputPath(file)) { chunk in
                let size = chunkBytes ?? max(chunk.count, 1)
                var start = 0
                while start < chunk.count, refusal == nil {
                    let end = min(start + size, chunk.count)
                    do throws(EventStreamParser.LimitExceeded) {
                        try parser.feed(chunk[start..<end], dispatch: emit)
                    } catch {
                        refusal = error
                    }
                    start = end
                }
            }
        } catch {
            io.writeError("sybil: \(error)\n")
            return .noInput
        }
        if let refusal {
            io.writeError("sybil: the event stream was refused: \(refusal)\n")
            return .invalidData
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
