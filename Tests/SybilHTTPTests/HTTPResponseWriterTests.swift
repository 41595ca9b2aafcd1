import SybilHTTP
import SybilWire
import Testing

@Suite("HTTP responses and SSE formatting", .timeLimit(.minutes(2)))
struct HTTPResponseWriterTests {
    @Test func aWholeResponseCarriesItsLength() {
        var headers = HTTPHeaders()
        headers.set("Content-Type", "application/json")
        let bytes = HTTPResponseWriter.response(status: 413, headers: headers, body: Array(#"{"error":{}}"#.utf8))
        #expect(
            String(decoding: bytes, as: UTF8.self)
                == "HTTP/1.1 413 Content Too Large\r\nContent-Type: application/json\r\nContent-Length: 12\r\n\r\n{\"error\":{}}"
        )
    }

    @Test func headerNamesCompareIgnoringASCIICaseOnly() {
        let headers = HTTPHeaders([("content-TYPE", "a"), ("X-[", "b")])
        #expect(headers["Content-Type"] == "a")
        #expect(headers["CONTENT-TYPE"] == "a")
        #expect(headers["Content-Typ"] == nil)
        #expect(headers["X-{"] == nil)  // '[' and '{' differ by 0x20 but are not letters
        #expect(headers["x-["] == "b")
    }

    @Test func fieldsThatCouldSplitAResponseAreNeutralised() {
        var headers = HTTPHeaders()
        headers.set("Content-Type", "text/plain\r\nSet-Cookie: evil=1")
        headers.set("Bad:Name", "x")
        headers.set("Content-Length", "0")
        let text = String(decoding: HTTPResponseWriter.head(status: 200, headers: headers), as: UTF8.self)
        #expect(text == "HTTP/1.1 200 OK\r\nContent-Type: text/plain  Set-Cookie: evil=1\r\nContent-Length: 0\r\n\r\n")
    }

    @Test func chunkedBodiesParseBackThroughTheRequestParser() throws {
        // The same framing the server writes is what its parser reads (used for upload tests).
        let body =
            HTTPResponseWriter.chunk(Array("hello ".utf8)) + HTTPResponseWriter.chunk(Array("world".utf8))
            + HTTPResponseWriter.lastChunk
        var parser = HTTPRequestParser { _ in 100 }
        let head = Array("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n".utf8)
        var joined: [UInt8] = []
        for event in try parser.feed(head + body) {
            if case .body(let bytes) = event { joined += bytes }
        }
        #expect(String(decoding: joined, as: UTF8.self) == "hello world")
        #expect(String(decoding: HTTPResponseWriter.chunk([1, 2]), as: UTF8.self) == "2\r\n\u{1}\u{2}\r\n")
    }

    @Test func eventsRoundTripThroughTheClientsParser() throws {
        let cases: [(data: String, type: String?, id: String?)] = [
            ("plain", nil, nil), ("two\nlines", "delta", "7"), ("", nil, "8"), ("cr\r\nlf\rmix", "x", nil),
            ("  leading spaces", nil, nil), ("Grüße 🎉", nil, "9"),
        ]
        var stream: [UInt8] = SSEEventWriter.comment()
        for item in cases {
            stream += SSEEventWriter.event(data: item.data, type: item.type, id: item.id, retry: 1_500)
        }
        var parser = EventStreamParser()
        let events = try parser.feed(stream)
        #expect(events.map(\.data) == ["plain", "two\nlines", "", "cr\nlf\nmix", "  leading spaces", "Grüße 🎉"])
        #expect(events.map(\.type) == ["message", "delta", "message", "x", "message", "message"])
        #expect(events.map(\.lastEventId) == ["", "7", "8", "8", "8", "9"])
        #expect(parser.reconnectionTime == 1_500)
        #expect(parser.statistics.comments == 1)
    }
}
