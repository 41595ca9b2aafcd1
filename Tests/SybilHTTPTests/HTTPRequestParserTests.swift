import SybilHTTP
import Testing

@Suite("HTTP/1.1 request parser", .timeLimit(.minutes(2)))
struct HTTPRequestParserTests {
    private func parser(bodyLimit: Int = 1 << 20, headLimit: Int = 16 << 10) -> HTTPRequestParser {
        HTTPRequestParser(maximumHeadBytes: headLimit) { _ in bodyLimit }
    }

    private func parse(_ text: String, bodyLimit: Int = 1 << 20, chunk: Int? = nil) throws(HTTPParseError)
        -> [HTTPRequestParser.Event]
    {
        var parser = parser(bodyLimit: bodyLimit)
        let bytes = Array(text.utf8)
        let step = chunk ?? max(bytes.count, 1)
        var events: [HTTPRequestParser.Event] = []
        var start = 0
        while start < bytes.count {
            let end = min(start + step, bytes.count)
            events += try parser.feed(bytes[start..<end])
            start = end
        }
        return events
    }

    /// Heads, joined bodies and ends, independent of how the body was split.
    private func summary(_ events: [HTTPRequestParser.Event]) -> [String] {
        var result: [String] = []
        var body: [UInt8] = []
        for event in events {
            switch event {
            case .head(let head): result.append("\(head.method) \(head.target)")
            case .body(let bytes): body += bytes
            case .end:
                result.append("body:" + String(decoding: body, as: UTF8.self))
                body = []
            }
        }
        return result
    }

    @Test func aGetWithoutBody() throws {
        let events = try parse("GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n")
        guard case .head(let head) = events.first else {
            Issue.record("no head")
            return
        }
        #expect(head.method == "GET" && head.path == "/healthz" && head.minorVersion == 1)
        #expect(head.headers["host"] == "localhost")
        #expect(head.keepAlive)
        #expect(events.last == .end)
    }

    @Test func contentLengthAndChunkedBodiesSplitAnywhere() throws {
        let request =
            "POST /v1/chat/completions HTTP/1.1\r\nHost: h\r\nContent-Length: 11\r\n\r\nhello world"
            + "POST /agent/uploads HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n5;ext=1\r\nhello\r\n6\r\n world\r\n0\r\nX-Trailer: t\r\n\r\n"
            + "GET /after HTTP/1.1\r\nHost: h\r\n\r\n"
        let expected = [
            "POST /v1/chat/completions", "body:hello world", "POST /agent/uploads", "body:hello world", "GET /after",
            "body:",
        ]
        for size in [nil, 1, 2, 3, 7, 64] as [Int?] {
            #expect(try summary(parse(request, chunk: size)) == expected, "chunks of \(size.map(String.init) ?? "all")")
        }
    }

    @Test func headLimitBoundaryIs16KiB() throws {
        func request(headBytes: Int) -> String {
            let start = "GET / HTTP/1.1\r\nHost: h\r\nX-Pad: "
            let padding = headBytes - start.utf8.count - 4
            return start + String(repeating: "a", count: padding) + "\r\n\r\n"
        }
        #expect(request(headBytes: 16_384).utf8.count == 16_384)
        #expect(throws: Never.self) { try parse(request(headBytes: 16_383)) }
        #expect(throws: Never.self) { try parse(request(headBytes: 16_384)) }
        #expect(throws: HTTPParseError.headersTooLarge(limit: 16_384)) { try parse(request(headBytes: 16_385)) }
        // A head that never ends is refused once it passes the limit, before its end arrives.
        var endless = parser()
        #expect(throws: HTTPParseError.headersTooLarge(limit: 16_384)) {
            _ = try endless.feed(Array(("GET / HTTP/1.1\r\nX: " + String(repeating: "a", count: 16_400)).utf8))
        }
        #expect(HTTPParseError.headersTooLarge(limit: 16_384).status == 431)
    }

    @Test func bodyLimitBoundary() throws {
        let at = "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 10\r\n\r\n0123456789"
        #expect(throws: Never.self) { try parse(at, bodyLimit: 10) }
        #expect(throws: HTTPParseError.bodyTooLarge(limit: 9)) { try parse(at, bodyLimit: 9) }
        let chunked =
            "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n6\r\n012345\r\n5\r\n6789a\r\n0\r\n\r\n"
        #expect(throws: Never.self) { try parse(chunked, bodyLimit: 11) }
        #expect(throws: HTTPParseError.bodyTooLarge(limit: 10)) { try parse(chunked, bodyLimit: 10) }
        #expect(HTTPParseError.bodyTooLarge(limit: 1).status == 413)
    }

    @Test(
        "malformed requests are refused with their status",
        arguments: [
            ("GET /\r\nHost: h\r\n\r\n", 400),
            ("GET / HTTP/2.0\r\nHost: h\r\n\r\n", 505),
            ("GET / FTP/1.1\r\nHost: h\r\n\r\n", 400),
            ("G(T / HTTP/1.1\r\nHost: h\r\n\r\n", 400),
            ("GET / HTTP/1.1\r\n\r\n", 400),
            ("GET / HTTP/1.1\r\nHost: h\r\n folded\r\n\r\n", 400),
            ("GET / HTTP/1.1\r\nHost: h\r\nBad Name: x\r\n\r\n", 400),
            ("GET / HTTP/1.1\r\nHost: h\r\nNo colon\r\n\r\n", 400),
            ("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab", 400),
            ("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: -1\r\n\r\n", 400),
            ("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 400),
            ("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: gzip\r\n\r\n", 501),
            ("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", 400),
            ("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabXX", 400),
            ("GET / HTTP/1.1\r\nHost: h\r\nX-A: a\rb\r\n\r\n", 400),
            ("GET / HTTP/1.1\r\nHost: h\r\nX-A: a\nb\r\n\r\n", 400),
            ("GET / HTTP/1.1\r\nHost: h\u{0}\r\n\r\n", 400),
            ("GET  / HTTP/1.1\r\nHost: h\r\n\r\n", 400),
            ("GET /a\u{7F} HTTP/1.1\r\nHost: h\r\n\r\n", 400),
            // RFC 9112 §6.1: HTTP/1.0 has no transfer codings.
            ("POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 400),
            // RFC 9112 §7.1.2: a trailer is a field line.
            ("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nno colon\r\n\r\n", 400),
            ("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nBad Name: x\r\n\r\n", 400),
            ("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n folded: x\r\n\r\n", 400),
            ("GET ftp://h/ HTTP/1.1\r\nHost: h\r\n\r\n", 400),
            ("GET http:///nohost HTTP/1.1\r\nHost: h\r\n\r\n", 400),
        ])
    func malformed(request: String, status: Int) {
        do {
            _ = try parse(request)
            Issue.record("accepted \(request.debugDescription)")
        } catch {
            #expect(error.status == status, "\(request.debugDescription): \(error)")
        }
    }

    /// RFC 9112 §2.2: empty lines before a request line are ignored (a client may send a CRLF
    /// after a POST body), up to `maximumEmptyLinesBeforeRequest` per request; one more is a 400.
    @Test func emptyLinesBeforeARequestLineAreIgnoredUpToTheBound() throws {
        let limit = HTTPRequestParser.maximumEmptyLinesBeforeRequest
        let lines = String(repeating: "\r\n", count: limit)
        let request =
            "\r\nGET /a HTTP/1.1\r\nHost: h\r\n\r\n" + "POST /b HTTP/1.1\r\nHost: h\r\nContent-Length: 2\r\n\r\nok"
            + lines + "GET /c HTTP/1.1\r\nHost: h\r\n\r\n"
        for size in [nil, 1, 2, 3, 7] as [Int?] {
            #expect(
                try summary(parse(request, chunk: size)) == [
                    "GET /a", "body:", "POST /b", "body:ok", "GET /c", "body:",
                ],
                "chunks of \(size.map(String.init) ?? "all")")
            #expect(
                throws: HTTPParseError.badRequest("more than \(limit) empty lines before the request line"),
                "chunks of \(size.map(String.init) ?? "all")"
            ) { try parse(lines + "\r\nGET /d HTTP/1.1\r\nHost: h\r\n\r\n", chunk: size) }
        }
        // A CR that does not start an empty line is still refused, and a bare LF is no empty line.
        #expect(throws: HTTPParseError.badRequest("a bare CR in the request head")) {
            try parse("\rGET / HTTP/1.1\r\nHost: h\r\n\r\n")
        }
        #expect(throws: HTTPParseError.badRequest("a bare LF in the request head")) {
            try parse("\nGET / HTTP/1.1\r\nHost: h\r\n\r\n")
        }
        // Waiting for the LF after a lone CR is waiting, not idleness.
        var waiting = parser()
        _ = try waiting.feed(Array("\r\n\r".utf8))
        #expect(!waiting.isIdle)
    }

    @Test func aMalformedRequestAfterAValidOneKeepsTheValidOnesEvents() {
        var parser = parser()
        var events: [HTTPRequestParser.Event] = []
        let bytes = Array(
            ("POST /a HTTP/1.1\r\nHost: h\r\nContent-Length: 2\r\n\r\nok"
                + "GET /b HTTP/1.1\r\nHost: h\r\nBad Name: x\r\n\r\n").utf8)
        #expect(throws: HTTPParseError.badRequest("the header name \"Bad Name\" is not a token")) {
            try parser.feed(bytes, into: &events)
        }
        #expect(summary(events) == ["POST /a", "body:ok"])
    }

    @Test(
        "chunk extensions are legal and ignored (RFC 9112 §7.1.1)",
        arguments: ["2;ext=1", "2;ext", "2 ;ext=1", "2\t; a=b ;c=\"q;d\"", "2;ext=\"v\""])
    func chunkExtensions(sizeLine: String) throws {
        let request =
            "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n\(sizeLine)\r\nab\r\n0;last\r\n\r\n"
        #expect(try summary(parse(request)) == ["POST /", "body:ab"])
    }

    @Test func absoluteFormTargetsAreAcceptedAsTheirOriginForm() throws {
        func target(_ text: String) throws -> String? {
            if case .head(let head)? = try parse("GET \(text) HTTP/1.1\r\nHost: h\r\n\r\n").first { return head.target }
            return nil
        }
        #expect(try target("http://h/healthz") == "/healthz")
        #expect(try target("HTTP://h:8799/v1/models?x=1") == "/v1/models?x=1")
        #expect(try target("https://h") == "/")
        #expect(try target("http://h?x=1") == "/?x=1")
    }

    @Test(
        "a head that cannot become valid is refused as soon as it shows, before it ends",
        arguments: [
            Array("GET / HTTP/1.1\nHost: h\n".utf8),
            Array("GET / HTTP/1.1\r\nHost: h\nX".utf8),
            [0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00, 0x01, 0xFC, 0x03, 0x03],
            Array("\u{1}GET".utf8),
        ])
    func earlyRefusal(bytes: [UInt8]) {
        var parser = parser()
        do {
            let events = try parser.feed(bytes)
            Issue.record("waited for more after \(bytes), got \(events)")
        } catch {
            #expect(error.status == 400)
        }
    }

    @Test func keepAliveRules() throws {
        func head(_ text: String) throws -> HTTPRequestHead? {
            if case .head(let head)? = try parse(text).first { return head }
            return nil
        }
        #expect(try head("GET / HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n")?.keepAlive == false)
        #expect(try head("GET / HTTP/1.0\r\n\r\n")?.keepAlive == false, "HTTP/1.0 needs no Host and closes by default")
        #expect(try head("GET / HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n")?.keepAlive == true)
    }

    @Test func garbageEndsInAnEventOrAStatusNeverACrash() {
        var seed: UInt64 = 42
        var refused = 0
        for _ in 0..<300 {
            // At least one byte each time: the seed advances, and an empty input followed by CRLF
            // CRLF is two empty lines, which are ignored (RFC 9112 §2.2), not garbage.
            var bytes: [UInt8] = []
            for _ in 0...Int(seed % 200) {
                seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                bytes.append(UInt8(truncatingIfNeeded: seed >> 56))
            }
            var parser = parser()
            do {
                _ = try parser.feed(bytes)
                _ = try parser.feed(Array("\r\n\r\n".utf8))
            } catch {
                refused += 1
                #expect([400, 413, 431, 501, 505].contains(error.status), "\(error)")
            }
        }
        #expect(refused == 300, "random bytes are never a valid request")
    }
}
