import SybilHTTP

/// Fuzzes the client's HTTP/1.1 response parser (what a hostile server sends): fed whole, byte
/// by byte or in seeded pieces, a response gives the same head, the same body bytes and the
/// same ending; events come in order (one head, its body, at most one end); the body is never
/// longer than the bytes that carried it, and a head has at most its limit of fields. The
/// first byte of the input, when odd, makes it the answer to a `HEAD` request.
public enum HTTPResponseFuzzTarget {
    /// A small head limit, so inputs of a few kilobytes reach it.
    static let maximumHeadBytes = 1_024

    /// What a parser made of one response.
    struct Outcome: Equatable {
        var head: HTTPResponseParser.Event?
        var body: [UInt8]
        var ended: Bool
        var failed: Bool
    }

    /// Parses `bytes` in each chunking and compares the outcomes.
    public static func run(_ bytes: [UInt8]) throws(FuzzFailure) {
        guard let first = bytes.first else { return }
        let requestWasHead = first & 1 == 1
        let response = Array(bytes.dropFirst())
        var reference: (name: String, outcome: Outcome)?
        for (name, chunks) in FuzzSplits.chunkings(of: response) {
            var outcome = try parse(chunks, requestWasHead: requestWasHead, fedAs: name, total: response.count)
            if outcome.failed {
                // How much of a body arrived before an error stops it depends on the chunking.
                outcome.body = []
            }
            guard let reference else {
                reference = (name, outcome)
                continue
            }
            guard outcome == reference.outcome else {
                throw FuzzFailure(
                    target: .httpResponse,
                    "fed \(reference.name): \(describe(reference.outcome)); fed \(name): \(describe(outcome))")
            }
        }
    }

    private static func parse(
        _ chunks: [ArraySlice<UInt8>], requestWasHead: Bool, fedAs name: String, total: Int
    ) throws(FuzzFailure) -> Outcome {
        var parser = HTTPResponseParser(requestWasHead: requestWasHead, maximumHeadBytes: maximumHeadBytes)
        var outcome = Outcome(head: nil, body: [], ended: false, failed: false)
        func take(_ events: [HTTPResponseParser.Event]) throws(FuzzFailure) {
            for event in events {
                switch event {
                case .head(_, let headers):
                    guard outcome.head == nil else { throw failure(name, "a second head") }
                    guard headers.fields.count <= HTTPResponseParser.maximumFieldCount else {
                        throw failure(name, "a head with \(headers.fields.count) fields")
                    }
                    outcome.head = event
                case .body(let piece):
                    guard outcome.head != nil, !outcome.ended else { throw failure(name, "body bytes outside a body") }
                    outcome.body += piece
                case .end:
                    guard outcome.head != nil, !outcome.ended else { throw failure(name, "an end outside a response") }
                    outcome.ended = true
                }
            }
        }
        var events: [HTTPResponseParser.Event] = []
        var failed = false
        for chunk in chunks {
            do {
                try parser.feed(chunk, into: &events)
            } catch {
                failed = true
            }
            try take(events)
            events.removeAll()
            if failed { break }
        }
        if !failed {
            do {
                try parser.finish(into: &events)
            } catch {
                failed = true
            }
            try take(events)
        }
        outcome.failed = failed
        guard outcome.body.count <= total else {
            throw failure(name, "\(outcome.body.count) body bytes from a \(total)-byte response")
        }
        guard outcome.failed || outcome.ended else { throw failure(name, "finished without an end or an error") }
        return outcome
    }

    private static func failure(_ name: String, _ what: String) -> FuzzFailure {
        FuzzFailure(target: .httpResponse, "fed \(name): \(what)")
    }

    private static func describe(_ outcome: Outcome) -> String {
        var status = "no head"
        if case .head(let code, let headers) = outcome.head { status = "\(code) with \(headers.fields.count) fields" }
        return
            "\(status), \(outcome.body.count) body bytes, \(outcome.failed ? "failed" : outcome.ended ? "ended" : "open")"
    }
}
