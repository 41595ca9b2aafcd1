import SybilWire

/// Fuzzes the Server-Sent Events parser: fed whole, byte by byte or in seeded pieces, a stream
/// gives the same events, the same last event ID, the same reconnection time and the same
/// refusal at a limit (under the default limits and under small ones that the corpus reaches),
/// and the parser's line-end search examines each byte at most twice.
public enum EventStreamFuzzTarget {
    /// What a parser made of one stream.
    struct Outcome: Equatable {
        var events: [ServerSentEvent]
        var lastEventId: String
        var reconnectionTime: Int?
        var failure: EventStreamParser.LimitExceeded?
    }

    /// Small limits, so that short inputs reach them.
    static let smallLimits = EventStreamParser.Limits(maximumLineBytes: 40, maximumEventBytes: 200)

    /// Parses `bytes` in each chunking and compares the outcomes.
    public static func run(_ bytes: [UInt8]) throws(FuzzFailure) {
        try run(bytes, limits: EventStreamParser.Limits())
        try run(bytes, limits: smallLimits)
    }

    static func run(_ bytes: [UInt8], limits: EventStreamParser.Limits) throws(FuzzFailure) {
        var reference: (name: String, outcome: Outcome)?
        for (name, chunks) in FuzzSplits.chunkings(of: bytes) {
            var parser = EventStreamParser(limits: limits)
            var events: [ServerSentEvent] = []
            var failure: EventStreamParser.LimitExceeded?
            for chunk in chunks where failure == nil {
                do {
                    try parser.feed(chunk) { events.append($0) }
                } catch {
                    failure = error
                }
            }
            guard parser.statistics.bytesScanned <= 2 * bytes.count else {
                throw FuzzFailure(
                    target: .sse,
                    "fed \(name), \(parser.statistics.bytesScanned) bytes were scanned for line ends in a "
                        + "\(bytes.count)-byte stream (at most twice the input)")
            }
            parser.finish()
            let outcome = Outcome(
                events: events, lastEventId: parser.lastEventId, reconnectionTime: parser.reconnectionTime,
                failure: failure)
            guard let reference else {
                reference = (name, outcome)
                continue
            }
            guard outcome == reference.outcome else {
                throw FuzzFailure(
                    target: .sse,
                    "fed \(reference.name): \(reference.outcome.events.count) events, last id "
                        + "\(reference.outcome.lastEventId.debugDescription); fed \(name): \(outcome.events.count) "
                        + "events, last id \(outcome.lastEventId.debugDescription)"
                        + (outcome.failure == reference.outcome.failure
                            ? ""
                            : "; refused \(String(describing: reference.outcome.failure)) vs \(String(describing: outcome.failure))")
                )
            }
        }
    }
}
