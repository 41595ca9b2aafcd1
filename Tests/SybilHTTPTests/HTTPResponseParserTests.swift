import SybilHTTP
import Testing

@Suite("HTTP response parser", .timeLimit(.minutes(2)))
struct HTTPResponseParserTests {
    /// Parses `text` fed in pieces of `step` bytes, then the connection's end when `close`.
    private func parse(
        _ text: String, step: Int = .max, requestWasHead: Bool = false, close: Bool = false,
        maximumHeadBytes: Int = 64 << 10
    ) throws -> (status: Int?, headers: HTTPHeaders?, body: String, ended: Bool) {
        var parser = HTTPResponseParser(requestWasHead: requestWasHead, maximumHeadBytes: maximumHeadBytes)
        let bytes = Array(text.utf8)
        var events: [HTTPResponseParser.Event] = []
        var index = 0
        while index < bytes.count {
            let end = index + min(step, bytes.count - index)
            try parser.feed(bytes[index..<end], into: &events)
            index = end
        }
        if close { try parser.finish(into: &events) }
        var result: (status: Int?, headers: HTTPHeaders?, body: String, ended: Bool) = (nil, nil, "", false)
        var body: [UInt8] = []
        for event in events {
            switch event {
            case .head(let status, let headers):
                #expect(result.status == nil, "one final head")
                result.status = status
                result.headers = headers
            case .body(let bytes):
                #expect(!result.ended, "no body after the end")
                body += bytes
            case .end: result.ended = true
            }
        }
        result.body = String(decoding: body, as: UTF8.self)
        return result
    }

    private let chunked =
        "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n"
        + "9;ext=1\r\ndata: a\n\n\r\n9\r\ndata: b\n\n\r\n0\r\nX-Trailer: t\r\n\r\n"

    @Test func aChunkedBodyIsTheSameHoweverItIsSplit() throws {
        for step in 1...12 {
            let result = try parse(chunked, step: step)
            #expect(result.status == 200)
            #expect(result.headers?["content-type"] == "text/event-stream")
            #expect(result.body == "data: a\n\ndata: b\n\n", "step \(step)")
            #expect(result.ended, "step \(step)")
        }
    }

    @Test func contentLengthFramesTheBodyAndIgnoresWhatFollows() throws {
        let result = try parse("HTTP/1.1 201 Created\r\nContent-Length: 2\r\n\r\nokEXTRA", step: 3)
        #expect(result.status == 201)
        #expect(result.body == "ok")
        #expect(result.ended)
    }

    @Test func aReadOfBodyBytesIsHandedOnWithoutACopy() throws {
        for head in ["HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n", "HTTP/1.1 200 OK\r\n\r\n"] {
            var parser = HTTPResponseParser()
            var events: [HTTPResponseParser.Event] = []
            try parser.feed(Array(head.utf8), into: &events)
            let read = Array("0123".utf8)
            try parser.feed(read, into: &events)
            guard case .body(let body) = events.last else {
                Issue.record("no body piece after \(head.debugDescription)")
                continue
            }
            #expect(body == read)
            let shared = body.withUnsafeBufferPointer { piece in
                read.withUnsafeBufferPointer { piece.baseAddress == $0.baseAddress }
            }
            #expect(shared, "the read's own bytes, not a copy (\(head.debugDescription))")
        }
    }

    @Test func theLastReadOfALengthIsCutAtTheEndAndClosesTheBody() throws {
        var parser = HTTPResponseParser()
        var events: [HTTPResponseParser.Event] = []
        try parser.feed(Array("HTTP/1.1 200 OK\r\nContent-Length: 6\r\n\r\n".utf8), into: &events)
        try parser.feed(Array("abcd".utf8), into: &events)
        try parser.feed(Array("efgh".utf8), into: &events)
        try parser.feed(Array("ij".utf8), into: &events)
        #expect(events.dropFirst() == [.body(Array("abcd".utf8)), .body(Array("ef".utf8)), .end])
        #expect(parser.isComplete)
    }

    @Test func withoutFramingTheBodyEndsWithTheConnection() throws {
        let open = try parse("HTTP/1.0 200 OK\r\n\r\nstreamed")
        #expect(open.body == "streamed")
        #expect(!open.ended, "not over until the connection closes")
        let closed = try parse("HTTP/1.0 200 OK\r\n\r\nstreamed", close: true)
        #expect(closed.ended)
    }

    @Test func interimHeadsAreSkipped() throws {
        let result = try parse("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nx", step: 5)
        #expect(result.status == 200)
        #expect(result.body == "x")
    }

    /// RFC 9110 §15.2.2: a 101 answers only a request that asked to upgrade; after it the bytes
    /// are another protocol, so it fails the request instead of being skipped like a 100.
    @Test func aSwitchingProtocolsNobodyAskedForFailsTheRequest() {
        for step in [1, 5, Int.max] {
            let error = #expect(throws: HTTPResponseParser.ParseError.self, "fed \(step) bytes at a time") {
                try parse(
                    "HTTP/1.1 101 Switching Protocols\r\nUpgrade: h2c\r\n\r\n"
                        + "HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nx", step: step)
            }
            #expect(
                error?.description == "the server switched protocols (101) though the request did not ask to upgrade")
        }
    }

    /// RFC 9112 §6.3: a head with both Transfer-Encoding and Content-Length is read by its
    /// codings, and its connection must close after it; either field alone keeps it reusable.
    @Test func bothFramingFieldsAreReadByTheCodingsAndForbidReuse() throws {
        func mustClose(_ head: String) throws -> (Bool, [HTTPResponseParser.Event]) {
            var parser = HTTPResponseParser()
            var events: [HTTPResponseParser.Event] = []
            try parser.feed(Array((head + "2\r\nok\r\n0\r\n\r\n").utf8), into: &events)
            #expect(parser.isComplete)
            return (parser.connectionMustClose, events)
        }
        let both = try mustClose("HTTP/1.1 200 OK\r\nContent-Length: 100\r\nTransfer-Encoding: chunked\r\n\r\n")
        #expect(both.0)
        #expect(both.1.dropFirst() == [.body(Array("ok".utf8)), .end])
        #expect(try !mustClose("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n").0)
        var parser = HTTPResponseParser()
        var events: [HTTPResponseParser.Event] = []
        try parser.feed(Array("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok".utf8), into: &events)
        #expect(parser.isComplete && !parser.connectionMustClose)
    }

    @Test func headAnd204And304HaveNoBody() throws {
        let head = try parse("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n", requestWasHead: true)
        #expect(head.ended && head.body.isEmpty)
        for status in [204, 304] {
            let result = try parse("HTTP/1.1 \(status) X\r\nContent-Length: 10\r\n\r\n")
            #expect(result.status == status && result.ended && result.body.isEmpty)
        }
    }

    @Test func aCutShortResponseIsAnError() {
        #expect(throws: HTTPResponseParser.ParseError.self) {
            try parse("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nabc", close: true)
        }
        #expect(throws: HTTPResponseParser.ParseError.self) { try parse("HTTP/1.1 200 OK\r\n", close: true) }
        #expect(throws: HTTPResponseParser.ParseError.self) {
            try parse("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nab", close: true)
        }
    }

    @Test func lengthsThatCannotBeTrustedAreRefused() {
        for length in ["99999999999999999999", "-1", "1e3", "", "5, 6", "0x10"] {
            #expect(throws: HTTPResponseParser.ParseError.self, "Content-Length \(length)") {
                try parse("HTTP/1.1 200 OK\r\nContent-Length: \(length)\r\n\r\n")
            }
        }
        #expect(throws: HTTPResponseParser.ParseError.self, "two different lengths") {
            try parse("HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nxx")
        }
        #expect(throws: Never.self, "the same length twice") {
            try parse("HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 1\r\n\r\nx")
        }
        for size in ["FFFFFFFFFFFFFFFF", "g", "", "-1"] {
            #expect(throws: HTTPResponseParser.ParseError.self, "chunk size \(size)") {
                try parse("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n\(size)\r\n")
            }
        }
    }

    @Test func theHeadIsBoundedAtItsLimit() throws {
        let start = "HTTP/1.1 200 OK\r\nX: "
        let limit = 256
        let fits = start + String(repeating: "a", count: limit - start.utf8.count - 4) + "\r\n\r\n"
        #expect(fits.utf8.count == limit)
        #expect(try parse(fits, maximumHeadBytes: limit).status == 200)
        let over = start + String(repeating: "a", count: limit - start.utf8.count - 3) + "\r\n\r\n"
        #expect(throws: HTTPResponseParser.ParseError.self) { try parse(over, maximumHeadBytes: limit) }
        #expect(throws: HTTPResponseParser.ParseError.self, "refused before the head ends") {
            try parse(start + String(repeating: "a", count: limit), step: 7, maximumHeadBytes: limit)
        }
    }

    @Test func aChunkSizeLineIsBoundedAt1KiB() throws {
        let head = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
        let longest = "1;" + String(repeating: "e", count: HTTPResponseParser.maximumChunkLine - 2)
        #expect(try parse(head + longest + "\r\nx\r\n0\r\n\r\n", step: 100).body == "x")
        #expect(throws: HTTPResponseParser.ParseError.self) {
            try parse(head + longest + "e\r\nx\r\n0\r\n\r\n", step: 100)
        }
    }

    @Test func malformedHeadsNameWhatIsWrong() {
        let cases = [
            "HTTP/2 200 OK\r\n\r\n": "HTTP/1.x",
            "HTTP/1.1 20 OK\r\n\r\n": "3 digits",
            "HTTP/1.1 200 OK\r\n folded: x\r\n\r\n": "folded",
            "HTTP/1.1 200 OK\r\nno colon\r\n\r\n": "no colon",
            "HTTP/1.1 200 OK\r\nbad name: x\r\n\r\n": "not a token",
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1\nx": "bare LF",
        ]
        for (text, words) in cases {
            do {
                _ = try parse(text)
                Issue.record("accepted \(text.debugDescription)")
            } catch {
                #expect(String(describing: error).contains(words), "\(error)")
            }
        }
    }

    @Test func whatCameBeforeAnErrorIsKeptHoweverTheBytesAreSplit() {
        // The head and a broken chunk in one read: the head is still handed on before the error
        // (found by the http-response fuzz target, fuzz/regressions/http-response/).
        let bytes = Array("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3z\nabc\r\n0\r\n\r\n".utf8)
        for step in [1, 7, bytes.count] {
            var parser = HTTPResponseParser()
            var events: [HTTPResponseParser.Event] = []
            var failure: HTTPResponseParser.ParseError?
            var index = 0
            while index < bytes.count, failure == nil {
                let end = min(bytes.count, index + step)
                do { try parser.feed(bytes[index..<end], into: &events) } catch { failure = error }
                index = end
            }
            #expect(failure?.description.contains("chunk") == true, "step \(step): \(String(describing: failure))")
            #expect(events.first.map { if case .head(200, _) = $0 { true } else { false } } == true, "step \(step)")
            #expect(events.count == 1, "step \(step): only the head")
        }
    }
}
