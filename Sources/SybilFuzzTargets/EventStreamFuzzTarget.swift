import SybilWire

/// Fuzzes the Server-Sent Events parser: fed whole, byte by byte or in seeded pieces, a stream
/// gives the same events, the same last event ID and the same reconnection time, and the
/// parser's line-end search examines each byte at most twice.
public enum EventStreamFuzzTarget {
    /// What a parser made of one stream.
    struct Outcome: Equatable {
        var events: [ServerSentEvent]
        var lastEventId: String
        var reconnectionTime: Int?
    }

    /// Parses `bytes` in each chunking and compares the outcomes.
    public static func run(_ bytes: [UInt8]) throws(FuzzFailure) {
        var reference: (name: String, outcome: Outcome)?
        for (name, chunks) in FuzzSplits.chunkings(of: bytes) {
            var parser = EventStreamParser()
            var events: [ServerSentEvent] = []
            for chunk in chunks {
                parser.feed(chunk) { events.append($0) }
            }
            guard parser.statistics.bytesScanned <= 2 * bytes.count else {
                throw FuzzFailure(
                    target: .sse,
                    "fed \(name), \(parser.statistics.bytesScanned) bytes were scanned for line ends in a "
                        + "\(bytes.count)-byte stream (at most twice the input)")
            }
            parser.finish()
            let outcome = Outcome(
                events: events, lastEventId: parser.lastEventId, reconnectionTime: parser.reconnectionTime)
            guard let reference else {
                reference = (name, outcome)
                continue
            }
            guard outcome == reference.outcome else {
                throw FuzzFailure(
                    target: .sse,
                    "fed \(reference.name): \(reference.outcome.events.count) events, last id "
                        + "\(reference.outcome.lastEventId.debugDescription); fed \(name): \(outcome.events.count) "
                        + "events, last id \(outcome.lastEventId.debugDescription)")
            }
        }
    }
}
