import SybilHTTP
import Testing

/// The head rules both parsers share (one decoder): field-line syntax, the head and field-count
/// bounds and the framing fields, read the same for a request and a response, whatever the split.
@Suite("HTTP head decoder (requests and responses)", .timeLimit(.minutes(2)))
struct HTTPHeadDecoderTests {
    /// What the request parser makes of `head` + `rest`, fed whole and byte by byte (the same
    /// either way): the head, or the error's description.
    private static func request(_ fields: String, rest: String = "") -> Result<HTTPRequestHead, HTTPParseError> {
        let bytes = Array(("GET / HTTP/1.1\r\nHost: h\r\n" + fields + "\r\n" + rest).utf8)
        var results: [Result<HTTPRequestHead, HTTPParseError>] = []
        for step in [bytes.count, 1] {
            var parser = HTTPRequestParser { _ in 1 << 20 }
            var events: [HTTPRequestParser.Event] = []
            var failure: HTTPParseError?
            var index = 0
            while index < bytes.count, failure == nil {
                let end = min(bytes.count, index + step)
                do { try parser.feed(bytes[index..<end], into: &events) } catch { failure = error }
                index = end
            }
            if let failure {
                results.append(.failure(failure))
            } else if case .head(let head)? = events.first {
                results.append(.success(head))
            }
        }
        #expect(results.count == 2 && results.first == results.last, "the same whole and byte by byte")
        return results.first ?? .failure(.badRequest("neither a head nor an error"))
    }

    /// What the response parser makes of `fields` after a status line, fed whole and byte by
    /// byte (the same either way): status and headers, or the error.
    private static func response(
        _ fields: String, status: String = "200 OK", rest: String = ""
    ) -> Result<HTTPResponseParser.Event, Refusal> {
        let bytes = Array(("HTTP/1.1 \(status)\r\n" + fields + "\r\n" + rest).utf8)
        var results: [Result<HTTPResponseParser.Event, Refusal>] = []
        for step in [bytes.count, 1] {
            var parser = HTTPResponseParser()
            var events: [HTTPResponseParser.Event] = []
            var failure: HTTPResponseParser.ParseError?
            var index = 0
            while index < bytes.count, failure == nil {
                let end = min(bytes.count, index + step)
                do { try parser.feed(bytes[index..<end], into: &events) } catch { failure = error }
                index = end
            }
            if let failure {
                results.append(.failure(Refusal(failure.description)))
            } else if let head = events.first {
                results.append(.success(head))
            }
        }
        #expect(results.count == 2 && results.first == results.last, "the same whole and byte by byte")
        return results.first ?? .failure(Refusal("neither a head nor an error"))
    }

    @Test(
        "a faulty field line is refused alike by both sides, naming the fault",
        arguments: [
            (" folded: x\r\n", "a header line starts with white space (folded lines are not allowed)"),
            ("\tfolded: x\r\n", "a header line starts with white space (folded lines are not allowed)"),
            ("X-A: a\r\n continued\r\n", "a header line starts with white space (folded lines are not allowed)"),
            ("no colon\r\n", "the header line \"no colon\" has no colon"),
            ("Bad Name: x\r\n", "the header name \"Bad Name\" is not a token"),
            ("X(y): z\r\n", "the header name \"X(y)\" is not a token"),
            ("Caf\u{E9}: z\r\n", "the header name \"Caf\u{E9}\" is not a token"),
            (": x\r\n", "a header line has no name before its colon"),
            // RFC 9112 §5.1: no white space between the name and the colon.
            ("Content-Length : 0\r\n", "white space between the header name \"Content-Length\" and its colon"),
            ("X-A\t: 0\r\n", "white space between the header name \"X-A\" and its colon"),
        ])
    func faultyFieldLine(fields: String, reason: String) {
        #expect(Self.request(fields) == .failure(.badRequest(reason)))
        #expect(Self.response(fields) == .failure(Refusal(reason)))
    }

    @Test func aFieldNameIsMadeOfTokenCharactersOnly() {
        // RFC 9110 §5.6.2: tchar is `!#$%&'*+-.^_`|~`, digits and letters.
        let tchars = Set("!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ".utf8)
        for byte in UInt8(0x21)...UInt8(0xFF) where byte != UInt8(ascii: ":") {
            var parser = HTTPRequestParser { _ in 0 }
            let head = Array("GET / HTTP/1.1\r\nHost: h\r\nX".utf8) + [byte] + Array("Y: v\r\n\r\n".utf8)
            let accepted = (try? parser.feed(head)) != nil
            #expect(accepted == tchars.contains(byte), "byte 0x\(String(byte, radix: 16))")
        }
    }

    @Test func lineEndingsAreCRLFOnlyOnBothSides() {
        #expect(Self.request("X-A: a\rb\r\n") == .failure(.badRequest("a bare CR in the request head")))
        #expect(
            Self.response("X-A: a\rb\r\n")
                == .failure(Refusal("a bare CR in the response head")))
        #expect(Self.request("X-A: a\u{0}b\r\n") == .failure(.badRequest("a NUL byte in the request head")))
        #expect(
            Self.response("X-A: a\u{0}b\r\n")
                == .failure(Refusal("a NUL byte in the response head")))
        #expect(Self.request("X-A: a\nb\r\n") == .failure(.badRequest("a bare LF in the request head")))
        #expect(
            Self.response("X-A: a\nb\r\n")
                == .failure(Refusal("a bare LF in the response head")))
    }

    @Test func valuesLoseTheirOptionalWhiteSpaceOnly() throws {
        let fields = "X-A: \t a  b \t\r\nX-B:\r\nX-C:c\r\n"
        let request = try Self.request(fields).get()
        #expect(request.headers.values(named: "x-a") == ["a  b"])
        #expect(request.headers["X-B"] == "" && request.headers["X-C"] == "c")
        guard case .success(.head(_, let headers)) = Self.response(fields) else {
            Issue.record("the response was refused")
            return
        }
        #expect(headers == HTTPHeaders(request.headers.fields.dropFirst().map { ($0.name, $0.value) }))
    }

    @Test func aRequestHasAtMost100Fields() throws {
        #expect(HTTPRequestParser.maximumFieldCount == 100)
        // Host is one of them.
        let most = String(repeating: "X-A: 1\r\n", count: 99)
        #expect(try Self.request(most).get().headers.fields.count == 100)
        #expect(Self.request(most + "X-A: 1\r\n") == .failure(.tooManyHeaderFields(limit: 100)))
        #expect(HTTPParseError.tooManyHeaderFields(limit: 100).status == 431)
    }

    @Test func aResponseHasAtMost256Fields() throws {
        #expect(HTTPResponseParser.maximumFieldCount == 256)
        let most = String(repeating: "X-A: 1\r\n", count: 256)
        guard case .success(.head(_, let headers)) = Self.response(most) else {
            Issue.record("256 fields were refused")
            return
        }
        #expect(headers.fields.count == 256)
        #expect(
            Self.response(most + "X-A: 1\r\n")
                == .failure(Refusal("the response head has more than 256 header fields")))
    }

    @Test func differingLengthsAreRefusedOnBothSides() {
        let fields = "Content-Length: 1\r\nContent-Length: 2\r\n"
        #expect(Self.request(fields) == .failure(.badRequest("the Content-Length fields disagree ([\"1\", \"2\"])")))
        guard case .failure(let error) = Self.response(fields) else {
            Issue.record("the response was accepted")
            return
        }
        #expect(error.description == "Content-Length \"1\" is not one valid length")
        // A client takes the same length repeated as a list (RFC 9110 §8.6); a server does not.
        #expect(
            Self.request("Content-Length: 1, 1\r\n")
                == .failure(.badRequest("Content-Length \"1, 1\" is not one valid length")))
        #expect(throws: Never.self) { try Self.response("Content-Length: 1, 1\r\n", rest: "x").get() }
    }

    // MARK: Regressions: each failed before the two parsers shared one decoder.

    @Test func aResponsesTransferCodingsAreReadFromEveryField() throws {
        // Only the first Transfer-Encoding field was read: `chunked` then `gzip` was framed as
        // chunked, though the final coding is gzip and the body runs to the connection's end.
        let body = "hello, not a chunk"
        let untilClose = try Self.parseResponse(
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: gzip\r\n\r\n" + body)
        #expect(untilClose == body)
        // And `gzip` then `chunked` was read to the end, chunk framing and all.
        let chunked = try Self.parseResponse(
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n")
        #expect(chunked == "hello")
    }

    @Test func anEmptyCodingListElementDoesNotCount() throws {
        // RFC 9110 §5.6.1: empty list elements are ignored; `chunked, ,` was read to the end.
        let body = try Self.parseResponse(
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked, ,\r\n\r\n5\r\nhello\r\n0\r\n\r\n")
        #expect(body == "hello")
    }

    @Test func aResponseFieldWithoutANameIsRefused() {
        // `: x` was read as a field with an empty name.
        #expect(
            Self.response(": x\r\n")
                == .failure(Refusal("a header line has no name before its colon")))
    }

    @Test func aResponseHeadThatCannotBecomeValidIsRefusedAsSoonAsItShows() {
        func refusal(_ bytes: [UInt8]) -> String? {
            var parser = HTTPResponseParser()
            var events: [HTTPResponseParser.Event] = []
            do {
                try parser.feed(bytes, into: &events)
            } catch {
                return error.description
            }
            return nil
        }
        // LF-only line ends: the client waited for a CRLF CRLF until its timeout.
        #expect(refusal(Array("HTTP/1.1 200 OK\nContent-Length: 0\n\n".utf8)) == "a bare LF in the response head")
        // Not HTTP at all (an SSH banner, a TLS alert answering plain HTTP): it waited as well.
        #expect(
            refusal(Array("SSH-2.0-x\r\n".utf8)) == "the status line \"SSH-2.0-x\\r\\n\" is not HTTP/1.x")
        #expect(refusal([0x15, 0x03, 0x01, 0x00, 0x02])?.hasSuffix("is not HTTP/1.x") == true)
        #expect(refusal(Array("HTTP/".utf8)) == nil, "a status line still arriving")
    }

    /// The body of a response whose connection then closes, fed byte by byte.
    private static func parseResponse(_ text: String) throws -> String {
        var parser = HTTPResponseParser()
        var events: [HTTPResponseParser.Event] = []
        for byte in text.utf8 { try parser.feed([byte], into: &events) }
        try parser.finish(into: &events)
        var body: [UInt8] = []
        for case .body(let piece) in events { body += piece }
        #expect(events.last == .end)
        return String(decoding: body, as: UTF8.self)
    }
}

/// A response parser's refusal, by its description.
private struct Refusal: Error, Hashable {
    var description: String

    init(_ description: String) {
        self.description = description
    }
}
