import SybilCore
import SybilHTTP
import SybilWire

/// Fuzzes the client's whole response path as a hostile chat server reaches it: the input is
/// the bytes the server sends, read by ``HTTPResponseParser`` as the socket client reads them,
/// its body fed piece by piece into ``EventStreamParser`` (under its limits) and each event
/// decoded as ``OpenAIStreamEvent``, as the chat transport does, stopping where the transport
/// stops (`[DONE]`, an error frame, a malformed chunk, a stream past a limit, a broken
/// response). Fed whole, byte by byte or in seeded pieces, the path gives the same head, the
/// same decoded events and the same ending. What it holds stays bounded: the response parser
/// hands on every body byte of a read within that read (it keeps no body), no event carries more
/// data than the event limit nor an id or type longer than the line limit, and the event-stream
/// parser examines each byte at most twice. Every event is also decoded by the tree-free
/// ``ChatCompletionChunkDecoder`` and by the JSON tree (``OpenAIStreamEvent/decodeWithTree(_:)``):
/// a chunk the one reads the other reads the same, and what the one refuses the other does
/// not read as a chunk. A decoder kept for the whole stream (which joins a surrogate pair split
/// between two chunks and holds a trailing half until the next) reads the same events and,
/// ended, hands on texts of the same UTF-16 length as the events read alone (a joined pair is
/// two code units, as its two U+FFFD were). Runs under the default limits and under small ones
/// that short inputs reach.
public enum ChatResponseFuzzTarget {
    /// Limits small enough that inputs of a few kilobytes reach them.
    static let smallLimits = EventStreamParser.Limits(maximumLineBytes: 40, maximumEventBytes: 200)
    /// A small response head limit, for the same reason.
    static let maximumHeadBytes = 1_024

    /// Where the path stopped.
    enum Ending: Equatable {
        case done, errorFrame, malformedChunk, tooLarge, responseFailed, bodyEnded
    }

    /// What the path made of one response.
    struct Outcome: Equatable {
        var status: Int?
        var decoded: [OpenAIStreamEvent] = []
        var ending: Ending?
    }

    /// Runs `bytes` through the path in each chunking, under both limits, and compares.
    public static func run(_ bytes: [UInt8]) throws(FuzzFailure) {
        try run(bytes, limits: EventStreamParser.Limits(), maximumHeadBytes: 64 << 10)
        try run(bytes, limits: smallLimits, maximumHeadBytes: maximumHeadBytes)
    }

    static func run(_ bytes: [UInt8], limits: EventStreamParser.Limits, maximumHeadBytes: Int) throws(FuzzFailure) {
        var reference: (name: String, outcome: Outcome)?
        for (name, chunks) in FuzzSplits.chunkings(of: bytes) {
            var outcome = try read(chunks, limits: limits, maximumHeadBytes: maximumHeadBytes, fedAs: name)
            if outcome.ending == .responseFailed {
                // How much of a body arrives before a broken response stops it depends on the
                // reads (as in the http-response target); the refusal itself must not.
                outcome.decoded = []
            }
            guard let reference else {
                reference = (name, outcome)
                continue
            }
            guard outcome == reference.outcome else {
                throw FuzzFailure(
                    target: .chatResponse,
                    "fed \(reference.name): \(describe(reference.outcome)); fed \(name): \(describe(outcome))")
            }
        }
    }

    private static func read(
        _ chunks: [ArraySlice<UInt8>], limits: EventStreamParser.Limits, maximumHeadBytes: Int, fedAs name: String
    ) throws(FuzzFailure) -> Outcome {
        var response = HTTPResponseParser(maximumHeadBytes: maximumHeadBytes)
        var stream = EventStreamParser(limits: limits)
        var outcome = Outcome()
        var fed = 0
        var kept = KeptStream()
        // Hands one read's events on; returns whether the transport stops here.
        func deliver(_ events: [HTTPResponseParser.Event], read: Int) throws(FuzzFailure) -> Bool {
            var bodyBytes = 0
            for event in events {
                switch event {
                case .head(let status, _):
                    outcome.status = status
                case .body(let piece):
                    bodyBytes += piece.count
                    if try consume(piece) { return true }
                case .end:
                    outcome.ending = .bodyEnded
                    return true
                }
            }
            guard bodyBytes <= read else {
                throw FuzzFailure(
                    target: .chatResponse,
                    "fed \(name): \(bodyBytes) body bytes handed on from a \(read)-byte read (body bytes were held)")
            }
            return false
        }
        // Feeds body bytes to the event-stream parser and decodes its events, as the transport.
        func consume(_ piece: [UInt8]) throws(FuzzFailure) -> Bool {
            // The events completed before a limit was passed are handed on first (the lossy
            // `feed(_:) -> [ServerSentEvent]` would make what is shown depend on the reads).
            var events: [ServerSentEvent] = []
            var refused = false
            do {
                try stream.feed(piece) { events.append($0) }
            } catch {
                refused = true
            }
            for event in events {
                // A type or id is decoded from at most a line's bytes; each byte yields at most one
                // scalar (bytes that are not UTF-8 become U+FFFD, three bytes in UTF-8).
                guard event.dataBytes.count <= limits.maximumEventBytes,
                    event.lastEventId.unicodeScalars.count <= limits.maximumLineBytes,
                    event.type.unicodeScalars.count <= limits.maximumLineBytes
                else {
                    throw FuzzFailure(
                        target: .chatResponse,
                        "fed \(name): an event of \(event.dataBytes.count) data bytes, a \(event.type.unicodeScalars.count)-scalar "
                            + "type and a \(event.lastEventId.unicodeScalars.count)-scalar id passed limits of "
                            + "\(limits.maximumEventBytes) and \(limits.maximumLineBytes)")
                }
                try checkDecodersAgree(on: event, fedAs: name)
                let decoded: OpenAIStreamEvent
                do {
                    decoded = try OpenAIStreamEvent.decode(event)
                } catch {
                    try kept.read(event, alone: nil, fedAs: name)
                    outcome.ending = .malformedChunk
                    return true
                }
                try kept.read(event, alone: decoded, fedAs: name)
                outcome.decoded.append(decoded)
                switch decoded {
                case .chunk: continue
                case .done:
                    outcome.ending = .done
                    return true
                case .error:
                    outcome.ending = .errorFrame
                    return true
                }
            }
            if refused { outcome.ending = .tooLarge }
            return refused
        }
        for chunk in chunks {
            fed += chunk.count
            var events: [HTTPResponseParser.Event] = []
            var failed = false
            do {
                try response.feed(chunk, into: &events)
            } catch {
                failed = true
            }
            // What came before an error is handed on first, as the socket exchange does.
            if try deliver(events, read: chunk.count) { break }
            if failed {
                outcome.ending = .responseFailed
                break
            }
        }
        if outcome.ending == nil {
            var events: [HTTPResponseParser.Event] = []
            do {
                try response.finish(into: &events)
                _ = try deliver(events, read: 0)
            } catch let failure as FuzzFailure {
                throw failure
            } catch {
                outcome.ending = .responseFailed
            }
        }
        try kept.end(fedAs: name)
        guard stream.statistics.bytesScanned <= 2 * fed else {
            throw FuzzFailure(
                target: .chatResponse,
                "fed \(name): \(stream.statistics.bytesScanned) bytes scanned for line ends in a \(fed)-byte response")
        }
        return outcome
    }

    /// Holds the tree-free chunk decoder to the tree decoder on one event: the same chunk, or
    /// both refusing it as a chunk (the tree may read an `error` member as an error frame); and
    /// the stream's decoder answers exactly what the tree answers, error included.
    public static func checkDecodersAgree(on event: ServerSentEvent, fedAs name: String = "whole")
        throws(FuzzFailure)
    {
        let tree = Result { () throws(JSONError) in try OpenAIStreamEvent.decodeWithTree(event) }
        let stream = Result { () throws(JSONError) in try OpenAIStreamEvent.decode(event) }
        guard stream == tree else {
            throw FuzzFailure(target: .chatResponse, "fed \(name): the stream decoder gave \(stream), the tree \(tree)")
        }
        guard event.type != "error", !(event.type == "message" && event.dataBytes.elementsEqual("[DONE]".utf8)) else {
            return
        }
        var decoder = ChatCompletionChunkDecoder(joinsSplitSurrogates: false)
        let direct = Result { () throws(JSONError) in try decoder.decode(event.dataBytes) }
        let agrees: Bool
        switch (direct, tree) {
        case (.success(.chunk(let chunk)), .success(.chunk(let treeChunk))): agrees = chunk == treeChunk
        case (.success(.chunk), _): agrees = false
        case (_, .success(.chunk)): agrees = false
        case (.success(.errorMember), .success(.error)), (.success(.errorMember), .failure): agrees = true
        // A refusal of the bytes (syntax, a limit) is the tree's refusal too; a contract
        // refusal may meet the tree's syntax error further on.
        case (.failure(let error), .failure(let treeError)):
            agrees = error.kind == .contract || error.kind == treeError.kind
        case (.failure(let error), .success(.error)): agrees = error.kind == .contract
        default: agrees = false
        }
        guard agrees else {
            throw FuzzFailure(
                target: .chatResponse, "fed \(name): the tree-free decoder gave \(direct), the tree \(tree)")
        }
    }

    /// The stream's events read by one decoder kept for the stream, against the same events
    /// read alone: the same outcome for each, and texts of the same UTF-16 length in all.
    private struct KeptStream {
        var decoder = ChatCompletionChunkDecoder()
        var keptUnits = 0
        var aloneUnits = 0

        /// Reads `event` with the kept decoder; `alone` is what it is read alone (`nil`: refused).
        mutating func read(_ event: ServerSentEvent, alone: OpenAIStreamEvent?, fedAs name: String)
            throws(FuzzFailure)
        {
            let kept = try? OpenAIStreamEvent.decode(event, using: &decoder)
            switch (kept, alone) {
            case (.chunk(let keptChunk)?, .chunk(let aloneChunk)?):
                keptUnits += Self.units(keptChunk)
                aloneUnits += Self.units(aloneChunk)
            case (nil, nil), (.done?, .done?), (.error?, .error?): break
            default:
                throw FuzzFailure(
                    target: .chatResponse,
                    "fed \(name): kept for the stream the decoder gave \(String(describing: kept)), alone \(String(describing: alone))"
                )
            }
        }

        /// Ends the stream: what the kept decoder still holds, and the lengths compared.
        mutating func end(fedAs name: String) throws(FuzzFailure) {
            if let tail = decoder.finish() { keptUnits += Self.units(tail) }
            guard keptUnits == aloneUnits else {
                throw FuzzFailure(
                    target: .chatResponse,
                    "fed \(name): kept for the stream the texts were \(keptUnits) UTF-16 code units, alone \(aloneUnits)"
                )
            }
        }

        static func units(_ chunk: ChatCompletionChunk) -> Int {
            var count = 0
            for choice in chunk.choices {
                count += (choice.content?.utf16.count ?? 0) + (choice.reasoning?.utf16.count ?? 0)
                for call in choice.toolCalls { count += call.arguments?.utf16.count ?? 0 }
            }
            return count
        }
    }

    private static func describe(_ outcome: Outcome) -> String {
        "status \(outcome.status.map(String.init) ?? "none"), \(outcome.decoded.count) events decoded, "
            + "ending \(outcome.ending.map { "\($0)" } ?? "none")"
    }
}
