import SybilHTTP
import Testing

/// The one chunked-body decoder, fed whole and in every split, and the two parsers that use
/// it refusing the same framing faults.
@Suite("Chunked transfer coding")
struct HTTPChunkedDecoderTests {
    private struct Outcome: Equatable {
        var data: [UInt8] = []
        var complete = false
        var left: [UInt8] = []
        var failure: HTTPChunkedDecoder.Failure?
    }

    /// Feeds `text` in pieces of `step` bytes (all at once when `nil`).
    private static func decode(
        _ text: String, step: Int? = nil, trailers: Int = 64, bodyLimit: Int = .max
    ) -> Outcome {
        var decoder = HTTPChunkedDecoder(maximumTrailerBytes: trailers, bodyLimit: bodyLimit)
        var outcome = Outcome()
        var buffer: [UInt8] = []
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let end = min(bytes.count, offset + (step ?? bytes.count))
            buffer += bytes[offset..<end]
            offset = end
            do {
                if try decoder.decode(&buffer, data: { outcome.data += $0 }) {
                    outcome.complete = true
                    break
                }
            } catch {
                outcome.failure = error
                return outcome
            }
        }
        outcome.left = buffer + bytes[offset...]
        return outcome
    }

    /// The same outcome whole and in every split from 1 to 9 bytes.
    private static func decodeEverySplit(
        _ text: String, trailers: Int = 64, bodyLimit: Int = .max, sourceLocation: SourceLocation = #_sourceLocation
    ) -> Outcome {
        let whole = decode(text, trailers: trailers, bodyLimit: bodyLimit)
        for step in 1...9 {
            let split = decode(text, step: step, trailers: trailers, bodyLimit: bodyLimit)
            #expect(split == whole, "step \(step)", sourceLocation: sourceLocation)
        }
        return whole
    }

    @Test func chunksWithExtensionsAndTrailersAreDecodedAndWhatFollowsIsLeft() {
        let outcome = Self.decodeEverySplit("5;name=value\r\nhello\r\n1 ; x\r\n!\r\n0\r\nX-Sum: 1\r\n\r\nNEXT")
        #expect(outcome.failure == nil)
        #expect(outcome.complete)
        #expect(outcome.data == Array("hello!".utf8))
        #expect(outcome.left == Array("NEXT".utf8))
    }

    @Test func aChunkSizeLineIsBoundedAt1KiBEvenBeforeItsEnd() {
        let longest = "1;" + String(repeating: "e", count: HTTPChunkedDecoder.maximumSizeLine - 2)
        #expect(Self.decodeEverySplit(longest + "\r\nx\r\n0\r\n\r\n").data == Array("x".utf8))
        let refusal = HTTPChunkedDecoder.Failure.malformed("a chunk-size line is longer than 1024 bytes")
        #expect(Self.decodeEverySplit(longest + "e\r\nx\r\n0\r\n\r\n").failure == refusal)
        // No CRLF ever comes: refused as soon as the line is too long.
        #expect(Self.decodeEverySplit(longest + "ee").failure == refusal)
    }

    @Test func aBareLFIsRefusedWithoutWaitingForMore() {
        #expect(Self.decodeEverySplit("1\nx").failure == .malformed("a bare LF in a chunk-size line"))
        #expect(Self.decodeEverySplit("0\r\nX: 1\n").failure == .malformed("a bare LF in the trailer section"))
    }

    @Test func malformedSizesAndFramingAreRefused() {
        #expect(Self.decodeEverySplit("zz\r\n").failure == .malformed("invalid chunk size \"zz\""))
        #expect(Self.decodeEverySplit(" 1\r\nx\r\n").failure == .malformed("invalid chunk size \" 1\""))
        let sixteenDigits = String(repeating: "f", count: 16)
        #expect(
            Self.decodeEverySplit("\(sixteenDigits)\r\n").failure
                == .malformed("invalid chunk size \"\(sixteenDigits)\""))
        #expect(Self.decodeEverySplit("1\u{1}\r\n").failure == .malformed("a control character in a chunk-size line"))
        #expect(Self.decodeEverySplit("2\r\nabXX").failure == .malformed("chunk data is not followed by CRLF"))
    }

    @Test func theAnnouncedDataIsBoundedBeforeItArrives() {
        #expect(Self.decodeEverySplit("4\r\nabcd\r\n0\r\n\r\n", bodyLimit: 4).complete)
        #expect(Self.decodeEverySplit("4\r\nabcd\r\n1\r\n", bodyLimit: 4).failure == .bodyTooLarge(limit: 4))
        #expect(Self.decodeEverySplit("fffffffffffffff\r\n", bodyLimit: 4).failure == .bodyTooLarge(limit: 4))
    }

    @Test func theTrailerSectionIsBoundedWithItsLineEndsAndItsFieldsChecked() {
        // 16 bytes of trailers: one 14-byte line and its CRLF fit exactly; the last CRLF too.
        #expect(Self.decodeEverySplit("0\r\nX: 0123456789a\r\n\r\n", trailers: 16).complete)
        #expect(
            Self.decodeEverySplit("0\r\nX: 0123456789ab\r\n\r\n", trailers: 16).failure == .trailersTooLarge(limit: 16))
        #expect(Self.decodeEverySplit("0\r\nX: 0123456789ab", trailers: 16).failure == .trailersTooLarge(limit: 16))
        #expect(
            Self.decodeEverySplit("0\r\nno colon\r\n\r\n").failure
                == .malformed("the trailer line \"no colon\" has no colon"))
        #expect(
            Self.decodeEverySplit("0\r\nBad Name: x\r\n\r\n").failure
                == .malformed("the trailer name \"Bad Name\" is not a token"))
        let folded = HTTPChunkedDecoder.Failure.malformed(
            "a trailer line starts with white space (folded lines are not allowed)")
        #expect(Self.decodeEverySplit("0\r\n folded: x\r\n\r\n").failure == folded)
    }

    @Test func requestsAndResponsesRefuseTheSameFramingFaults() throws {
        let faults = [
            "1\nx", "zz\r\n", "2\r\nabXX", "0\r\nno colon\r\n\r\n", "0\r\nBad Name: x\r\n\r\n",
            "1;" + String(repeating: "e", count: 1_024) + "\r\n",
        ]
        for fault in faults {
            var request = HTTPRequestParser { _ in 1 << 20 }
            let head = "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n"
            var requestError: HTTPParseError?
            do { _ = try request.feed(Array((head + fault).utf8)) } catch { requestError = error }
            var response = HTTPResponseParser()
            var events: [HTTPResponseParser.Event] = []
            var responseError: HTTPResponseParser.ParseError?
            do {
                try response.feed(
                    Array(("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" + fault).utf8), into: &events)
            } catch { responseError = error }
            let refusal = try #require(requestError, "request accepted \(fault.debugDescription)")
            let sameReason = try #require(responseError, "response accepted \(fault.debugDescription)").description
            #expect(refusal == .badRequest(sameReason))
        }
    }
}
