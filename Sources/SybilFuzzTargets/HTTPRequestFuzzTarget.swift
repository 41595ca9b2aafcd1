import SybilHTTP

/// Fuzzes the server's HTTP/1.1 request parser: fed whole, byte by byte or in seeded pieces, a
/// connection's bytes give the same requests (heads and bodies) and fail or not alike; events
/// come in order (a head, its body, its end), no head has more fields than its limit, and no
/// body exceeds its limit.
public enum HTTPRequestFuzzTarget {
    /// A small head limit and body limit, so inputs of a few kilobytes reach both.
    static let maximumHeadBytes = 1_024
    static let bodyLimit = 2_048

    /// One request as read: its head and its whole body; `complete` once its end was read.
    struct Request: Equatable {
        var head: HTTPRequestHead
        var body: [UInt8]
        var complete: Bool
    }

    /// What a parser made of one connection's bytes.
    struct Outcome: Equatable {
        var requests: [Request]
        var failed: Bool
    }

    /// Parses `bytes` in each chunking and compares the outcomes.
    public static func run(_ bytes: [UInt8]) throws(FuzzFailure) {
        var reference: (name: String, outcome: Outcome)?
        for (name, chunks) in FuzzSplits.chunkings(of: bytes) {
            var outcome = try parse(chunks, fedAs: name)
            if outcome.failed {
                // Where an error stops a request part way is a matter of chunking; the
                // requests read completely before it are not.
                outcome.requests.removeAll { !$0.complete }
            }
            guard let reference else {
                reference = (name, outcome)
                continue
            }
            guard outcome == reference.outcome else {
                throw FuzzFailure(
                    target: .http,
                    "fed \(reference.name): \(describe(reference.outcome)); fed \(name): \(describe(outcome))")
            }
        }
    }

    private static func parse(_ chunks: [ArraySlice<UInt8>], fedAs name: String) throws(FuzzFailure) -> Outcome {
        var parser = HTTPRequestParser(maximumHeadBytes: maximumHeadBytes) { _ in bodyLimit }
        var requests: [Request] = []
        var failed = false
        for chunk in chunks {
            var events: [HTTPRequestParser.Event] = []
            do {
                try parser.feed(chunk, into: &events)
            } catch {
                failed = true
            }
            for event in events {
                switch event {
                case .head(let head):
                    if let last = requests.last, !last.complete {
                        throw FuzzFailure(
                            target: .http, "fed \(name), a head arrived before the previous request ended")
                    }
                    _ = (head.keepAlive, head.path)
                    guard head.headers.fields.count <= HTTPRequestParser.maximumFieldCount else {
                        throw FuzzFailure(target: .http, "fed \(name), a head with \(head.headers.fields.count) fields")
                    }
                    requests.append(Request(head: head, body: [], complete: false))
                case .body(let piece):
                    guard let last = requests.last, !last.complete else {
                        throw FuzzFailure(target: .http, "fed \(name), body bytes arrived outside a request")
                    }
                    requests[requests.count - 1].body += piece
                    guard requests[requests.count - 1].body.count <= bodyLimit else {
                        throw FuzzFailure(target: .http, "fed \(name), a body passed its \(bodyLimit)-byte limit")
                    }
                case .end:
                    guard let last = requests.last, !last.complete else {
                        throw FuzzFailure(target: .http, "fed \(name), an end arrived outside a request")
                    }
                    requests[requests.count - 1].complete = true
                }
            }
            if failed { break }
        }
        return Outcome(requests: requests, failed: failed)
    }

    private static func describe(_ outcome: Outcome) -> String {
        let complete = outcome.requests.filter(\.complete).count
        let bodies = outcome.requests.map { String($0.body.count) }.joined(separator: ",")
        return "\(complete) of \(outcome.requests.count) requests complete, bodies [\(bodies)], "
            + (outcome.failed ? "refused" : "not refused")
    }
}
